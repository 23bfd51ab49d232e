package io.idem.cli;

/**
 * A failure the user should read as one line, {@code "idem uniq: <message>"}, with the exit code to
 * return. Usage errors use picocli's {@code ParameterException} instead, which exits with 2.
 */
final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int exitCode;

  CliException(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
