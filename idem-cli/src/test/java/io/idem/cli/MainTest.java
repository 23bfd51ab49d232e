package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
  void run_noCommand_exits2() {
    Run run = Run.main("");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo("idem: missing command: one of serve, size, uniq (see idem --help)\n");
  }

  @Test
  void run_unknownCommand_exits2WithOneLine() {
    Run run = Run.main("", "sise");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("idem: ").endsWith("(see idem --help)\n");
    assertThat(run.err().lines()).hasSize(1);
  }
}
