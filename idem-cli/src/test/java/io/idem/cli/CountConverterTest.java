package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

class CountConverterTest {

  @ParameterizedTest
  @CsvSource({
    "1000000, 1000000",
    "1_000_000, 1000000",
    "1e6, 1000000",
    "3.6e6, 3600000",
    "1M, 1000000",
    "2k, 2000",
    "1.5G, 1500000000",
    "64Mi, 67108864",
    "64MiB, 67108864",
    "100B, 100",
    "-5, -5"
  })
  void convert_commonSpellings_givesTheNumber(String text, long expected) {
    assertThat(new CountConverter().convert(text)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "abc", "1.5", "1e", "12i", "99999999999999999999", "1X"})
  void convert_notAWholeNumber_throws(String text) {
    assertThatThrownBy(() -> new CountConverter().convert(text))
        .isInstanceOf(TypeConversionException.class)
        .hasMessageContaining("is not a whole number");
  }
}
