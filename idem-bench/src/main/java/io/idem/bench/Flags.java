package io.idem.bench;

import io.idem.bench.ClaimBench.UsageException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** A benchmark main's command line: {@code --name value} pairs from a known set. */
final class Flags {

  /** What a main does with its options, in the order they were given. */
  interface Body {
    void run(Map<String, String> values) throws IOException, InterruptedException;
  }

  private Flags() {}

  /**
   * Runs a benchmark's main: {@code -h} prints the usage; an unknown option or a bad value prints
   * it too and exits 2; a failure prints itself and exits 1.
   */
  static void main(String name, String usage, Set<String> known, String[] args, Body body) {
    try {
      Map<String, String> v = new LinkedHashMap<>();
      for (int k = 0; k < args.length; k++) {
        if (args[k].equals("-h") || args[k].equals("--help")) {
          System.out.print(usage);
          return;
        }
        if (!known.contains(args[k]) || k + 1 == args.length) {
          throw new UsageException("unknown option or missing value: " + args[k]);
        }
        v.put(args[k], args[++k]);
      }
      body.run(v);
    } catch (UsageException e) {
      System.err.println(name + ": " + e.getMessage());
      System.err.print(usage);
      System.exit(2);
    } catch (IOException | RuntimeException | InterruptedException e) {
      System.err.println(name + ": FAILED: " + e);
      System.exit(1);
    }
  }

  /** The option's number, or {@code dflt}; a usage error if it is not one within the bounds. */
  static double number(Map<String, String> v, String key, double dflt, double min, double max) {
    String s = v.get(key);
    if (s == null) {
      return dflt;
    }
    double x;
    try {
      x = Double.parseDouble(s);
    } catch (NumberFormatException e) {
      throw new UsageException(key + " must be a number, not '" + s + "'");
    }
    if (!(x >= min && x <= max)) {
      throw new UsageException(key + " must be from " + min + " to " + max + ": " + s);
    }
    return x;
  }
}
