package io.idem.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.commands.Commands;
import io.idem.server.reply.Reply;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** commands.tsv and the registration lists agree: every command has its docs, and no more. */
class CommandDocsTest {

  @Test
  void everyCommand_hasItsGroupComplexityAndSummary() {
    for (CommandSpec spec : Commands.registry().all()) {
      assertThat(spec.group()).as(spec.name()).isNotBlank();
      assertThat(spec.complexity()).as(spec.name()).isNotBlank();
      assertThat(spec.summary()).as(spec.name()).isNotBlank();
    }
    assertThat(Commands.registry().get("bf.add").group()).isEqualTo("bf");
    assertThat(Commands.registry().get("bf.add").complexity()).isEqualTo("O(k * L)");
  }

  @Test
  void everyLine_namesARegisteredCommand() throws IOException {
    Set<String> names = new HashSet<>();
    try (InputStream in =
        CommandDocs.class.getResourceAsStream("/io/idem/server/commands/commands.tsv")) {
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        if (!line.isEmpty() && !line.startsWith("#")) {
          names.add(line.substring(0, line.indexOf('\t')));
        }
      }
    }
    Set<String> registered = new HashSet<>();
    Commands.registry().all().forEach(s -> registered.add(s.name()));
    assertThat(names).isEqualTo(registered);
  }

  @Test
  void aCommandWithoutDocs_isRefusedAtRegistration() {
    assertThatThrownBy(() -> CommandSpec.command("no.docs", 2, call -> Reply.OK).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("commands.tsv");
  }
}
