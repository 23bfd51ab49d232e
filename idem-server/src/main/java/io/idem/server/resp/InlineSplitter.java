package io.idem.server.resp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Splits an inline command line into words with the rules of Redis's {@code sdssplitargs}, so a
 * telnet session reads the same as with Redis.
 */
final class InlineSplitter {
  /*
   * The rules, byte for byte as Redis applies them:
   * - Blanks between words are the C isspace set (space, \t, \n, \v, \f, \r). An unquoted word ends
   *   at space, \t, \n or \r only, so \v and \f can be inside one.
   * - A double or single quote starts quoting anywhere in a word: a"b c" is one word, "ab c".
   * - In double quotes: \xHH (two hex digits) is that byte; \n \r \t \b \a are controls; a
   *   backslash before any other byte is that byte.
   * - In single quotes only \' is an escape.
   * - A closing quote must be followed by a blank or the end of the line, and every quote must be
   *   closed; otherwise the line is refused (unbalanced quotes).
   * - Unlike Redis, a NUL byte is an ordinary byte. Redis searches for the line end as a C string,
   *   so a NUL makes it wait for more input until the line is too big.
   * The words are decoded in place: a word's bytes never take more room than its source, so the
   * line array is reused and each word costs one copy.
   */

  private InlineSplitter() {}

  /**
   * The words of {@code line} (without its line terminator), or null if its quotes are unbalanced.
   * Overwrites {@code line}.
   */
  static byte @Nullable [][] split(byte[] line) {
    int end = line.length;
    List<byte[]> words = new ArrayList<>();
    int p = 0;
    while (true) {
      while (p < end && isBlank(line[p])) {
        p++;
      }
      if (p == end) {
        return words.toArray(new byte[0][]);
      }
      int start = p; // the decoded word is written over the line from here
      int w = p;
      int quote = 0; // '"', '\'' or 0
      while (true) {
        if (quote == 0) {
          if (p == end) {
            break;
          }
          byte c = line[p++];
          if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            break;
          } else if (c == '"' || c == '\'') {
            quote = c;
          } else {
            line[w++] = c;
          }
        } else {
          if (p == end) {
            return null; // the line ended inside quotes
          }
          byte c = line[p];
          if (c == quote) {
            if (p + 1 < end && !isBlank(line[p + 1])) {
              return null; // a closing quote glued to more text
            }
            p++;
            break;
          }
          if (c == '\\' && quote == '"' && p + 1 < end) {
            if (line[p + 1] == 'x' && p + 3 < end && isHex(line[p + 2]) && isHex(line[p + 3])) {
              line[w++] = (byte) (hexValue(line[p + 2]) << 4 | hexValue(line[p + 3]));
              p += 4;
            } else {
              line[w++] = unescape(line[p + 1]);
              p += 2;
            }
          } else if (c == '\\' && quote == '\'' && p + 1 < end && line[p + 1] == '\'') {
            line[w++] = '\'';
            p += 2;
          } else {
            line[w++] = c;
            p++;
          }
        }
      }
      words.add(Arrays.copyOfRange(line, start, w));
    }
  }

  /** C's isspace in the "C" locale. */
  static boolean isBlank(byte c) {
    return c == ' ' || (c >= '\t' && c <= '\r');
  }

  private static boolean isHex(byte c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static int hexValue(byte c) {
    return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
  }

  private static byte unescape(byte c) {
    return switch (c) {
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'b' -> '\b';
      case 'a' -> 7;
      default -> c;
    };
  }
}
