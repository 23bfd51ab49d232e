package io.idem.server.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Chars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/** Redis's strict integer rules for client arguments. */
class ParseTest {

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

  @Test
  void durationMillisOrNull_takesAPositiveNumberAndAUnit() {
    assertThat(Parse.durationMillisOrNull(b("90"))).isEqualTo(90_000L);
    assertThat(Parse.durationMillisOrNull(b("250ms"))).isEqualTo(250L);
    assertThat(Parse.durationMillisOrNull(b("250MS"))).isEqualTo(250L);
    assertThat(Parse.durationMillisOrNull(b("5s"))).isEqualTo(5_000L);
    assertThat(Parse.durationMillisOrNull(b("15m"))).isEqualTo(900_000L);
    assertThat(Parse.durationMillisOrNull(b("24h"))).isEqualTo(86_400_000L);
    assertThat(Parse.durationMillisOrNull(b("7D"))).isEqualTo(604_800_000L);
    assertThat(Parse.durationMillisOrNull(b("3650d"))).isEqualTo(Parse.MAX_DURATION_MILLIS);
    for (String bad :
        new String[] {
          "",
          "0",
          "0h",
          "-1h",
          "+1h",
          "024h",
          "h",
          "ms",
          "s",
          "1.5h",
          "1 h",
          "1hh",
          "3651d",
          "1234567890123",
          "1w",
          "٣h"
        }) {
      assertThat(Parse.durationMillisOrNull(b(bad))).as(bad).isNull();
    }
  }

  /**
   * What the parser did with strings before it read bytes: the reference it must still agree with.
   */
  private static Long durationModel(String arg) {
    String s = arg.toLowerCase(Locale.ROOT);
    long unit = 1000;
    String digits = s;
    for (String[] u :
        new String[][] {
          {"ms", "1"}, {"s", "1000"}, {"m", "60000"}, {"h", "3600000"}, {"d", "86400000"}
        }) {
      if (s.endsWith(u[0]) && s.length() > u[0].length()) {
        digits = s.substring(0, s.length() - u[0].length());
        unit = Long.parseLong(u[1]);
        break;
      }
    }
    Long n =
        digits.chars().allMatch(c -> c >= '0' && c <= '9') && digits.length() <= 12
            ? Parse.longOrNull(b(digits))
            : null;
    return n == null || n <= 0 || n > Parse.MAX_DURATION_MILLIS / unit ? null : n * unit;
  }

  @Property(seed = "20261122")
  void durationMillisOrNull_agreesWithTheStringModel(
      @ForAll
          @StringLength(max = 15)
          @Chars({'0', '1', '2', '9', 'm', 's', 'M', 'S', 'h', 'd', 'x', '-'})
          String arg) {
    assertThat(Parse.durationMillisOrNull(b(arg))).as(arg).isEqualTo(durationModel(arg));
  }
}
