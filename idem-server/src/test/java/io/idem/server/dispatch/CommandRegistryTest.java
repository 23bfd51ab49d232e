package io.idem.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.Commands;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** Finding a command from its name's bytes as a client sent them. */
class CommandRegistryTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void everyCommand_isFoundInAnyCase_fromItsBytes() {
    CommandRegistry r = Commands.registry();
    assertThat(r.size()).isGreaterThan(100);
    for (CommandSpec spec : r.all()) {
      assertThat(r.get(b(spec.name()))).isSameAs(spec);
      assertThat(r.get(b(spec.name().toUpperCase(Locale.ROOT)))).isSameAs(spec);
      String mixed =
          spec.name().substring(0, 1).toUpperCase(Locale.ROOT) + spec.name().substring(1);
      assertThat(r.get(b(mixed))).isSameAs(spec);
    }
  }

  @Test
  void nearNames_areNotFound() {
    CommandRegistry r = Commands.registry();
    for (String s :
        new String[] {"", "bf.ad", "bf.addd", "bf_add", "bf.add ", "pin", "\u00c9cho"}) {
      assertThat(r.get(b(s))).as(s).isNull();
    }
    // Folding is ASCII only: the byte 0xC9 is not 0xE9.
    assertThat(r.get(new byte[] {'B', 'F', '.', 'A', 'D', 'D'})).isSameAs(r.get("bf.add"));
  }
}
