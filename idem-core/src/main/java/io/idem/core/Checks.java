package io.idem.core;

/** Argument checks whose messages name the bad value, as in {@code "capacity (0) must be > 0"}. */
public final class Checks {
  private Checks() {}

  public static void checkArgument(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new IllegalArgumentException(String.format(format, args));
    }
  }
}
