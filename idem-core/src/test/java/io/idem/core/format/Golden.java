package io.idem.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files pin persisted formats byte for byte. They live in src/test/resources/golden; run
 * with -Didem.golden.update=true to write them anew after a deliberate format change (which must
 * also bump the family's format version).
 */
public final class Golden {
  private static final Path DIR = Path.of("src/test/resources/golden");

  private Golden() {}

  public static void assertMatches(String name, byte[] actual) {
    Path file = DIR.resolve(name);
    try {
      if (Boolean.getBoolean("idem.golden.update")) {
        Files.createDirectories(DIR);
        Files.write(file, actual);
      }
      assertThat(file)
          .as("golden file %s (write it with -Didem.golden.update=true)", file)
          .exists();
      assertThat(actual).as("bytes of %s", name).isEqualTo(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static byte[] read(String name) {
    try {
      return Files.readAllBytes(DIR.resolve(name));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
