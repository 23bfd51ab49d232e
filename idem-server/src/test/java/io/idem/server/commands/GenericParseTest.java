package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.generic.Parse;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** Redis's strict integer rules for client arguments. */
class GenericParseTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void longOrNull_acceptsOnlyCanonicalDecimals() {
    assertThat(Parse.longOrNull(b("0"))).isZero();
    assertThat(Parse.longOrNull(b("-12"))).isEqualTo(-12L);
    assertThat(Parse.longOrNull(b("9223372036854775807"))).isEqualTo(Long.MAX_VALUE);
    assertThat(Parse.longOrNull(b("-9223372036854775808"))).isEqualTo(Long.MIN_VALUE);
    for (String bad :
        new String[] {
          "",
          "-",
          "-0",
          "007",
          "+1",
          " 1",
          "1 ",
          "1a",
          "1.0",
          "1e3",
          "9223372036854775808",
          "-9223372036854775809",
          "99999999999999999999",
          "٣"
        }) {
      assertThat(Parse.longOrNull(b(bad))).as(bad).isNull();
    }
  }

  @Property(seed = "20240917")
  void longOrNull_readsWhatLongToStringWrites(@ForAll long v) {
    assertThat(Parse.longOrNull(b(Long.toString(v)))).isEqualTo(v);
  }

  @Test
  void unsignedOrNull_coversAll64Bits() {
    assertThat(Parse.unsignedOrNull(b("0"))).isZero();
    assertThat(Parse.unsignedOrNull(b("18446744073709551615"))).isEqualTo(-1L);
    assertThat(Parse.unsignedOrNull(b("0018"))).isEqualTo(18L);
    for (String bad : new String[] {"", "-1", "+1", "18446744073709551616", "1x", " 1"}) {
      assertThat(Parse.unsignedOrNull(b(bad))).as(bad).isNull();
    }
  }
}
