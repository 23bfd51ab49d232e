package io.idem.cli;

/** Placeholder entry point, replaced by the picocli command tree. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.err.println("idem: no commands yet");
    System.exit(2);
  }
}
