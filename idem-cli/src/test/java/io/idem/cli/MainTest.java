package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.BloomFilter;
import org.junit.jupiter.api.Test;

class MainTest {

  @Test
  void run_version_printsTheVersionConstant() {
    Run run = Run.main("", "--version");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).isEqualTo("idem " + Main.VERSION + "\n");
  }

  @Test
  void run_help_listsTheCommands() {
    Run run = Run.main("", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).contains("Usage: idem").contains("  size  ").contains("  uniq  ");
  }

  @Test
  void run_uniqHelp_statesTheExactModesLimit() {
    Run run = Run.main("", "uniq", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).contains("exact up to 128-bit hash collisions");
  }

  @Test
  void run_serveHelp_listsEverySettingWithItsDefault() {
    Run run = Run.main("", "serve", "--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).contains("Usage: idem serve").contains("--help");
    for (io.idem.server.dispatch.Config.Setting s :
        io.idem.server.dispatch.Config.defaults().settings()) {
      String shown = s.defaultValue().isEmpty() ? "\"\"" : s.defaultValue();
      assertThat(run.outText())
          .as(s.name())
          .containsPattern(
              "(?m)^  [* ] "
                  + java.util.regex.Pattern.quote(s.name())
                  + " +"
                  + java.util.regex.Pattern.quote(shown)
                  + "\\R        \\S");
    }
  }

  @Test
  void run_noCommand_exits2() {
    Run run = Run.main("");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "idem: missing command: one of serve, checkpoint, size, uniq (see idem --help)\n");
  }

  @Test
  void run_unknownCommand_exits2WithOneLine() {
    Run run = Run.main("", "sise");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("idem: ").endsWith("(see idem --help)\n");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void run_unknownBloomProbe_exits2BeforeAnyCommand_andOutputsNothing() {
    BloomFilter.probeKind(); // initialised before the property changes: other tests keep its path
    String before = System.getProperty(BloomFilter.PROBE_PROPERTY);
    System.setProperty(BloomFilter.PROBE_PROPERTY, "avx");
    try {
      Run run = Run.main("a\na\n", "uniq", "--error", "0.01");

      assertThat(run.exitCode()).isEqualTo(2);
      assertThat(run.err())
          .isEqualTo("idem: system property idem.bloom.probe must be auto or scalar, not 'avx'\n");
      assertThat(run.outText()).isEmpty();
    } finally {
      if (before == null) {
        System.clearProperty(BloomFilter.PROBE_PROPERTY);
      } else {
        System.setProperty(BloomFilter.PROBE_PROPERTY, before);
      }
    }
  }
}
