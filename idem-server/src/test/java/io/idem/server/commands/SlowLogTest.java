package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SLOWLOG GET, LEN and RESET with Redis's replies, and its two settings, through the dispatcher.
 */
class SlowLogTest {

  private final Harness h = new Harness();

  private static String text(Reply r) {
    return new String(((Reply.Bulk) r).bytes(), StandardCharsets.UTF_8);
  }

  private List<Reply> entries(String... count) {
    List<String> words = new ArrayList<>(List.of("SLOWLOG", "GET"));
    words.addAll(List.of(count));
    return ((Reply.Array) h.call(words.toArray(String[]::new))).items();
  }

  @Test
  void everyCommandAtThreshold0_newestFirst_cutAsRedisCutsThem() {
    assertThat(h.show("SLOWLOG", "LEN")).isEqualTo("(integer) 0");
    h.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
    h.call("BF.ADD", "bf", "item");
    List<String> many = new ArrayList<>(List.of("BF.MADD", "bf2"));
    for (int i = 0; i < 40; i++) {
      many.add("i" + i);
    }
    h.call(many.toArray(String[]::new));
    h.call("BF.ADD", "bf", "x".repeat(200));
    List<Reply> got = entries("3");
    assertThat(got).hasSize(3);
    List<Reply> newest = ((Reply.Array) got.get(0)).items();
    List<Reply> args = ((Reply.Array) newest.get(3)).items();
    assertThat(text(args.get(0))).isEqualTo("BF.ADD");
    assertThat(text(args.get(2))).isEqualTo("x".repeat(128) + "... (72 more bytes)");
    assertThat(((Reply.Int) newest.get(2)).value()).isNotNegative();
    List<Reply> madd = ((Reply.Array) ((Reply.Array) got.get(1)).items().get(3)).items();
    assertThat(madd).hasSize(32);
    assertThat(text(madd.get(31))).isEqualTo("... (11 more arguments)");
    assertThat(text(madd.get(30))).isEqualTo("i28");
    long newestId = ((Reply.Int) newest.get(0)).value();
    long olderId = ((Reply.Int) ((Reply.Array) got.get(1)).items().get(0)).value();
    assertThat(newestId).isGreaterThan(olderId);
    assertThat(entries()).hasSizeLessThanOrEqualTo(10);
    assertThat(entries("-1").size()).isGreaterThanOrEqualTo(4);
    assertThat(h.show("SLOWLOG", "GET", "-2"))
        .isEqualTo("(error) ERR count should be greater than or equal to -1");
  }

  @Test
  void maxLenTrims_resetEmpties_andMinus1LogsNothing() {
    h.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
    h.call("CONFIG", "SET", "slowlog-max-len", "3");
    for (int i = 0; i < 10; i++) {
      h.call("BF.ADD", "bf", "i" + i);
    }
    assertThat(h.show("SLOWLOG", "LEN")).isEqualTo("(integer) 3");
    assertThat(h.show("SLOWLOG", "RESET")).isEqualTo("OK");
    // RESET itself ran after the log was emptied, and was kept.
    assertThat(h.show("SLOWLOG", "LEN")).isEqualTo("(integer) 1");
    h.call("CONFIG", "SET", "slowlog-log-slower-than", "-1");
    h.call("SLOWLOG", "RESET");
    h.call("BF.ADD", "bf", "more");
    assertThat(h.show("SLOWLOG", "LEN")).isEqualTo("(integer) 0");
    assertThat(h.show("CONFIG", "SET", "slowlog-max-len", "100001")).startsWith("(error)");
    assertThat(h.show("CONFIG", "GET", "slowlog-max-len")).contains("3");
  }
}
