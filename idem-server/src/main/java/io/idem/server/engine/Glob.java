package io.idem.server.engine;

/**
 * Redis's glob patterns (KEYS, SCAN MATCH, CONFIG GET): {@code *}, {@code ?}, {@code [abc]}, {@code
 * [^a-z]} and {@code \} escapes, on bytes. Backtracking is bounded by the greedy-star algorithm, so
 * a hostile pattern costs at most pattern × subject steps.
 */
public final class Glob {

  private Glob() {}

  public static boolean matches(String pattern, String subject) {
    return matches(
        pattern.getBytes(java.nio.charset.StandardCharsets.UTF_8),
        subject.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  public static boolean matches(byte[] p, byte[] s) {
    int pi = 0;
    int si = 0;
    int starP = -1;
    int starS = -1;
    while (si < s.length) {
      if (pi < p.length && p[pi] == '*') {
        while (pi < p.length && p[pi] == '*') {
          pi++;
        }
        if (pi == p.length) {
          return true;
        }
        starP = pi;
        starS = si;
        continue;
      }
      int next = pi < p.length ? matchOne(p, pi, s[si]) : -1;
      if (next >= 0) {
        pi = next;
        si++;
      } else if (starP >= 0) {
        pi = starP;
        si = ++starS;
      } else {
        return false;
      }
    }
    while (pi < p.length && p[pi] == '*') {
      pi++;
    }
    return pi == p.length;
  }

  /** Matches one pattern element at pi against c: the index after the element, or -1. */
  private static int matchOne(byte[] p, int pi, byte c) {
    byte e = p[pi];
    if (e == '?') {
      return pi + 1;
    }
    if (e == '\\' && pi + 1 < p.length) {
      return p[pi + 1] == c ? pi + 2 : -1;
    }
    if (e != '[') {
      return e == c ? pi + 1 : -1;
    }
    int i = pi + 1;
    boolean negate = i < p.length && p[i] == '^';
    if (negate) {
      i++;
    }
    boolean hit = false;
    while (i < p.length && p[i] != ']') {
      if (p[i] == '\\' && i + 1 < p.length) {
        hit |= p[i + 1] == c;
        i += 2;
      } else if (i + 2 < p.length && p[i + 1] == '-' && p[i + 2] != ']') {
        int lo = Math.min(p[i] & 0xff, p[i + 2] & 0xff);
        int hi = Math.max(p[i] & 0xff, p[i + 2] & 0xff);
        hit |= (c & 0xff) >= lo && (c & 0xff) <= hi;
        i += 3;
      } else {
        hit |= p[i] == c;
        i++;
      }
    }
    // An unclosed '[' runs to the end of the pattern, as in Redis.
    return hit != negate ? Math.min(i + 1, p.length) : -1;
  }
}
