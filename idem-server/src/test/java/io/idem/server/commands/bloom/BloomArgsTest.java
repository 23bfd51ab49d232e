package io.idem.server.commands.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.dispatch.CommandException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BloomArgsTest {

  @ParameterizedTest
  @CsvSource({
    "0, 0",
    "1, 1",
    "-1, -1",
    "100, 100",
    "9223372036854775807, 9223372036854775807",
    "-9223372036854775808, -9223372036854775808"
  })
  void parseLong_redisIntegers(String text, long value) {
    assertThat(BloomArgs.parseLong(b(text), "bad")).isEqualTo(value);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "-",
        "+1",
        "01",
        "-0",
        "00",
        " 1",
        "1 ",
        "1.0",
        "1e3",
        "0x10",
        "9223372036854775808",
        "-9223372036854775809",
        "123456789012345678901",
        "١"
      })
  void parseLong_notRedisIntegers_throwTheGivenError(String text) {
    assertThatThrownBy(() -> BloomArgs.parseLong(b(text), "ERR bad capacity"))
        .isInstanceOf(CommandException.class)
        .hasMessage("ERR bad capacity");
  }

  @ParameterizedTest
  @CsvSource({
    "0.01, 0.01",
    "1e-3, 0.001",
    ".5, 0.5",
    "5., 5.0",
    "+0.25, 0.25",
    "-2, -2.0",
    "0, 0.0",
    "0e10, 0.0",
    "inf, Infinity",
    "-Infinity, -Infinity",
    "1E2, 100.0",
    "4.9e-324, 4.9E-324"
  })
  void parseDouble_strtodNumbers(String text, double value) {
    assertThat(BloomArgs.parseDouble(b(text), "bad")).isEqualTo(value);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        " 1",
        "1 ",
        "nan",
        "NaN",
        "-nan",
        "1e999",
        "-1e999",
        "1e-400",
        "abc",
        "1d",
        "1f",
        "1.0.0",
        "1e",
        "--1",
        "0x",
        "Infinityx",
        "1,5"
      })
  void parseDouble_notNumbers_throwTheGivenError(String text) {
    assertThatThrownBy(() -> BloomArgs.parseDouble(b(text), "ERR bad error rate"))
        .isInstanceOf(CommandException.class)
        .hasMessage("ERR bad error rate");
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
