package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DoubleFormatTest {

  /** Expected texts printed by Redis's own d2string (fpconv_dtoa) for the same doubles. */
  @ParameterizedTest
  @CsvSource({
    "0.0, 0",
    "-0.0, -0",
    "1.0, 1",
    "-1.0, -1",
    "1.5, 1.5",
    "0.1, 0.1",
    "0.3, 0.3",
    "0.3333333333333333, 0.3333333333333333",
    "3.14, 3.14",
    "0.001, 0.001",
    "1.0E-6, 0.000001",
    "1.0E-7, 1e-7",
    "1.5E-7, 1.5e-7",
    "1.25E-5, 1.25e-5",
    "123.456, 123.456",
    "123456.7, 123456.7",
    "1234567.8901234567, 1.2345678901234567e+6",
    "0.30000000000000004, 0.30000000000000004",
    "1.0E7, 10000000",
    "12345678.9, 12345678.9",
    "4.611686018427388E18, 4611686018427387904",
    "4.6116860184273889E18, 4611686018427389000",
    "9.2E18, 9.2e+18",
    "1.0E19, 1e+19",
    "1.5E20, 1.5e+20",
    "1.0E21, 1e+21",
    "1.0E300, 1e+300",
    "-1.0E300, -1e+300",
    "1.7976931348623157E308, 1.7976931348623157e+308",
    "2.2250738585072014E-308, 2.2250738585072014e-308",
    "4.9E-324, 5e-324",
    "1.0E-323, 1e-323",
    "Infinity, inf",
    "-Infinity, -inf",
    "NaN, nan",
  })
  void text_asRedisPrintsIt(double value, String expected) {
    assertThat(text(value)).isEqualTo(expected);
  }

  @Test
  void text_randomDoubles_readBackExactlyInRedisLayout() {
    Pattern plainInteger = Pattern.compile("-?[1-9][0-9]*");
    Pattern decimal = Pattern.compile("-?(0|[1-9][0-9]*)\\.[0-9]*[1-9]");
    Pattern scientific = Pattern.compile("-?[1-9](\\.[0-9]*[1-9])?e[-+][1-9][0-9]{0,2}");
    SplittableRandom random = new SplittableRandom(0xD0_0B1E);
    for (int i = 0; i < 200_000; i++) {
      double value =
          switch (i % 3) {
            case 0 -> Double.longBitsToDouble(random.nextLong());
            case 1 -> random.nextDouble(-1e6, 1e6);
            default -> random.nextDouble() * Math.pow(10, random.nextInt(-30, 31));
          };
      if (!Double.isFinite(value) || value == 0) {
        continue;
      }
      String t = text(value);
      assertThat(Double.parseDouble(t)).as(t).isEqualTo(value);
      assertThat(
              plainInteger.matcher(t).matches()
                  || decimal.matcher(t).matches()
                  || scientific.matcher(t).matches())
          .as("layout of %s", t)
          .isTrue();
      assertThat(t.length()).isLessThanOrEqualTo(25); // a sign and 17 digits with 7 zeros
    }
  }

  private static String text(double value) {
    byte[] special = DoubleFormat.special(value);
    if (special != null) {
      return ascii(special);
    }
    if (DoubleFormat.isPrintedAsInteger(value)) {
      return Long.toString((long) value);
    }
    return ascii(DoubleFormat.shortest(value));
  }

  private static String ascii(byte[] b) {
    return new String(b, StandardCharsets.US_ASCII);
  }
}
