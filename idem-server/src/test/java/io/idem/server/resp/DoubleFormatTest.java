package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
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
    // Grisu2 is not always shortest; Redis prints these, and so must we.
    "1.0E23, 99999999999999990000000",
    "2.0E23, 199999999999999980000000",
    "894.994574, 894.9945739999999",
    "310409.1448823346, 3.1040914488233463e+5",
    "-1.7985960910513048E15, -1798596091051304.7",
    "1.76503754281714E-108, 1.7650375428171402e-108",
    "Infinity, inf",
    "-Infinity, -inf",
    "NaN, nan",
  })
  void text_asRedisPrintsIt(double value, String expected) {
    assertThat(text(value)).isEqualTo(expected);
  }

  /**
   * The texts of {@link #SAMPLES} samples, one a line, hash to what Redis's own d2string
   * (fpconv_dtoa, Redis 7.2 and later) printed for the same doubles.
   */
  @Test
  void text_manyDoubles_sameBytesAsRedis() {
    CRC32 crc = new CRC32();
    SplittableRandom random = new SplittableRandom(SEED);
    for (int i = 0; i < SAMPLES; i++) {
      crc.update((text(sample(random, i)) + "\n").getBytes(StandardCharsets.US_ASCII));
    }
    assertThat(crc.getValue()).isEqualTo(REDIS_CRC);
  }

  @Test
  void text_manyDoubles_readBackExactlyInRedisLayout() {
    Pattern plainInteger = Pattern.compile("-?[1-9][0-9]*");
    Pattern decimal = Pattern.compile("-?(0|[1-9][0-9]*)\\.[0-9]*[1-9]");
    Pattern scientific = Pattern.compile("-?[1-9](\\.[0-9]*[1-9])?e[-+][1-9][0-9]{0,2}");
    SplittableRandom random = new SplittableRandom(SEED);
    for (int i = 0; i < SAMPLES; i++) {
      double value = sample(random, i);
      String t = text(value);
      assertThat(Double.parseDouble(t)).as(t).isEqualTo(value);
      assertThat(
              plainInteger.matcher(t).matches()
                  || decimal.matcher(t).matches()
                  || scientific.matcher(t).matches()
                  || t.equals("0")
                  || t.equals("-0"))
          .as("layout of %s", t)
          .isTrue();
      assertThat(t.length()).isLessThanOrEqualTo(25); // a sign and 17 digits with 7 zeros
    }
  }

  static final long SEED = 0xD0_0B1E;
  static final int SAMPLES = 100_000;
  static final long REDIS_CRC = 3498005612L; // printed by Redis's fpconv_dtoa for these samples

  /** Finite doubles of every kind: any bits, subnormals, powers of two, integers, decimals. */
  static double sample(SplittableRandom random, int i) {
    double value =
        switch (i % 6) {
          case 0 -> Double.longBitsToDouble(random.nextLong());
          case 1 -> Double.longBitsToDouble(random.nextLong() & 0x800F_FFFF_FFFF_FFFFL);
          case 2 -> Double.longBitsToDouble((long) random.nextInt(1, 2047) << 52);
          case 3 -> (double) random.nextLong(1, 10_000_000_000_000_000L) * 1000;
          case 4 -> random.nextDouble(-1e6, 1e6);
          default -> random.nextDouble() * Math.pow(10, random.nextInt(-30, 31));
        };
    return Double.isFinite(value) ? value : 1.5;
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
