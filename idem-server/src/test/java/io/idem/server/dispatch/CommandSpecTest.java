package io.idem.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.reply.Reply;
import org.junit.jupiter.api.Test;

/** The arity a spec states, pair-shaped and bounded arities included. */
class CommandSpecTest {

  private static final Handler OK = call -> Reply.OK;

  @Test
  void arity_pairsAndMost_areCheckedBeforeTheHandler() {
    CommandSpec pairs =
        CommandSpec.command("x.incrby", -4, OK)
            .group("test")
            .doc("a test", "O(1)")
            .pairsFrom(2)
            .build();
    assertThat(pairs.arityAccepts(3)).isFalse(); // under the arity
    assertThat(pairs.arityAccepts(4)).isTrue(); // key, one pair
    assertThat(pairs.arityAccepts(5)).isFalse(); // half a pair
    assertThat(pairs.arityAccepts(6)).isTrue();

    CommandSpec most =
        CommandSpec.command("x.info", -2, OK).group("test").doc("a test", "O(1)").atMost(3).build();
    assertThat(most.arityAccepts(1)).isFalse();
    assertThat(most.arityAccepts(2)).isTrue();
    assertThat(most.arityAccepts(3)).isTrue();
    assertThat(most.arityAccepts(4)).isFalse();

    CommandSpec both =
        CommandSpec.command("x.create", -2, OK)
            .group("test")
            .doc("a test", "O(1)")
            .pairsFrom(2)
            .atMost(4)
            .build();
    assertThat(both.arityAccepts(2)).isTrue();
    assertThat(both.arityAccepts(3)).isFalse();
    assertThat(both.arityAccepts(4)).isTrue();
    assertThat(both.arityAccepts(6)).isFalse();
  }

  @Test
  void contradictoryShapes_areRefusedAtRegistration() {
    assertThatThrownBy(
            () ->
                CommandSpec.command("x", 3, OK)
                    .group("test")
                    .doc("a test", "O(1)")
                    .atMost(4)
                    .build())
        .isInstanceOf(IllegalStateException.class); // a fixed arity has no most
    assertThatThrownBy(
            () ->
                CommandSpec.command("x", -4, OK)
                    .group("test")
                    .doc("a test", "O(1)")
                    .atMost(3)
                    .build())
        .isInstanceOf(IllegalStateException.class); // most under the least
    assertThatThrownBy(
            () ->
                CommandSpec.command("x", 3, OK)
                    .group("test")
                    .doc("a test", "O(1)")
                    .pairsFrom(1)
                    .build())
        .isInstanceOf(IllegalStateException.class);
  }
}
