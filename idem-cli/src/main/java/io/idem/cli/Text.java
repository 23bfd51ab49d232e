package io.idem.cli;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Formatting for human output: aligned tables, byte sizes, short decimals. */
final class Text {
  private Text() {}

  /** "1.14 MiB": binary units, three significant digits; plain bytes below 1 KiB. */
  static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = bytes;
    int u = -1;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return decimal(v, 3) + " " + units[u];
  }

  /** {@code x} to {@code digits} significant digits, without trailing zeros or exponent clutter. */
  static String decimal(double x, int digits) {
    if (x == 0 || !Double.isFinite(x)) {
      return x == 0 ? "0" : Double.toString(x);
    }
    BigDecimal d = new BigDecimal(x).round(new MathContext(digits)).stripTrailingZeros();
    // Plain notation while it stays short; 7.8e-9 rather than 0.0000000078.
    return d.scale() <= 8 ? d.toPlainString() : d.toString().replace("E", "e");
  }

  /** Two decimals, for bits per item and the like. */
  static String fixed2(double x) {
    return String.format(Locale.ROOT, "%.2f", x);
  }

  /** A table whose columns are padded to their widest cell; 'l' or 'r' alignment per column. */
  static final class Table {
    private final String alignment;
    private final List<String[]> rows = new ArrayList<>();

    /** A table with these alignments and, if given, a header row. */
    Table(String alignment, String... header) {
      this.alignment = alignment;
      if (header.length > 0) {
        row(header);
      }
    }

    Table row(String... cells) {
      if (cells.length != alignment.length()) {
        throw new IllegalArgumentException(
            "row has " + cells.length + " cells, table has " + alignment.length() + " columns");
      }
      rows.add(cells);
      return this;
    }

    String render() {
      int[] widths = new int[alignment.length()];
      for (String[] row : rows) {
        for (int c = 0; c < row.length; c++) {
          widths[c] = Math.max(widths[c], row[c].length());
        }
      }
      StringBuilder out = new StringBuilder();
      for (String[] row : rows) {
        StringBuilder line = new StringBuilder();
        for (int c = 0; c < row.length; c++) {
          if (c > 0) {
            line.append("  ");
          }
          char[] pad = new char[widths[c] - row[c].length()];
          Arrays.fill(pad, ' ');
          if (alignment.charAt(c) == 'r') {
            line.append(pad).append(row[c]);
          } else {
            line.append(row[c]).append(pad);
          }
        }
        out.append(line.toString().stripTrailing()).append('\n');
      }
      return out.toString();
    }
  }
}
