package io.idem.cli;

import java.math.BigDecimal;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads a whole number the way people write large ones: {@code 1000000}, {@code 1_000_000}, {@code
 * 1e6}, {@code 1M}, or for bytes {@code 64Mi} / {@code 64MiB}. Decimal suffixes k, M, G, T are
 * powers of 1000; Ki, Mi, Gi, Ti are powers of 1024. Ranges are checked by the command.
 */
final class CountConverter implements ITypeConverter<Long> {
  @Override
  public Long convert(String text) {
    String s = text.strip().replace("_", "").replace(",", "");
    if (s.endsWith("B")) {
      s = s.substring(0, s.length() - 1);
    }
    long multiplier = 1;
    boolean binary = s.endsWith("i");
    String digits = binary ? s.substring(0, s.length() - 1) : s;
    if (!digits.isEmpty()) {
      int power = "kmgt".indexOf(Character.toLowerCase(digits.charAt(digits.length() - 1))) + 1;
      if (power > 0) {
        digits = digits.substring(0, digits.length() - 1);
        for (int i = 0; i < power; i++) {
          multiplier *= binary ? 1024 : 1000;
        }
      } else if (binary) {
        throw notACount(text);
      }
    }
    try {
      return new BigDecimal(digits.toLowerCase(Locale.ROOT))
          .multiply(BigDecimal.valueOf(multiplier))
          .longValueExact();
    } catch (ArithmeticException | NumberFormatException e) {
      throw notACount(text);
    }
  }

  private static TypeConversionException notACount(String text) {
    return new TypeConversionException(
        "'" + text + "' is not a whole number (examples: 1000000, 1_000_000, 1e6, 1M, 64MiB)");
  }
}
