package io.idem.server.resp;

import io.idem.server.reply.Reply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.ByteProcessor;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes replies in RESP2 or RESP3. RESP2 has no map, set, double, boolean, null or verbatim types,
 * so those fall back as Redis's do: a map is a flat array of keys and values, a set an array, a
 * double a bulk string of its text, a boolean {@code :1}/{@code :0}, a null {@code $-1} (or {@code
 * *-1} for a missing array), a verbatim string a bulk string of its text.
 */
public final class RespEncoder {
  /*
   * Speed: the common replies (+OK, :0, :1, small integers, $-1, *0) and the headers of small
   * bulks and arrays are copied from preallocated bytes; other integers are printed into the
   * buffer digit by digit. Only doubles that are not integers allocate (the digits, a few small
   * arrays), and replies in general are allocated by the handlers anyway.
   */

  /** Integers, lengths and counts below this are preallocated lines. */
  static final int CACHED = 512;

  private static final byte[][] INTEGERS = lines(':', -1);
  private static final byte[][] BULK_HEADERS = lines('$', 0);
  private static final byte[][] ARRAY_HEADERS = lines('*', 0);
  private static final byte[] OK = ascii("+OK\r\n");
  private static final byte[] PONG = ascii("+PONG\r\n");
  private static final byte[] NULL_BULK = ascii("$-1\r\n");
  private static final byte[] NULL_ARRAY = ascii("*-1\r\n");
  private static final byte[] RESP3_NULL = ascii("_\r\n");
  private static final byte[] TRUE = ascii("#t\r\n");
  private static final byte[] FALSE = ascii("#f\r\n");
  private static final byte[] LONG_MIN = ascii(Long.toString(Long.MIN_VALUE));
  private static final byte[] VERBATIM_DEFAULT_FORMAT = ascii("txt");
  private static final short CRLF = ('\r' << 8) | '\n';

  /** Finds a CR or LF, which must not reach the client inside a simple string or an error. */
  private static final ByteProcessor NOT_CR_OR_LF = b -> b != '\r' && b != '\n';

  private RespEncoder() {}

  /**
   * Appends {@code reply} to {@code out}.
   *
   * @param protocol 2 or 3, as the connection negotiated with HELLO
   */
  public static void write(Reply reply, int protocol, ByteBuf out) {
    boolean resp3 = protocol == 3;
    switch (reply) {
      case Reply.Simple s -> writeSimple(s.text(), out);
      case Reply.Error e -> writeLine((byte) '-', e.text(), out);
      case Reply.Int i -> writeInteger(i.value(), out);
      case Reply.Bulk b -> writeBulk(b.bytes(), out);
      case Reply.Null n -> out.writeBytes(resp3 ? RESP3_NULL : NULL_BULK);
      case Reply.NullArray n -> out.writeBytes(resp3 ? RESP3_NULL : NULL_ARRAY);
      case Reply.Array a -> writeAggregate('*', a.items().size(), a.items(), protocol, out);
      case Reply.IntRows rows -> {
        long[] values = rows.values();
        int width = rows.width();
        writeLength(ARRAY_HEADERS, '*', rows.rows(), out);
        for (int start = 0; start < values.length; start += width) {
          writeLength(ARRAY_HEADERS, '*', width, out);
          for (int i = start; i < start + width; i++) {
            writeInteger(values[i], out);
          }
        }
      }
      case Reply.Set s ->
          writeAggregate(resp3 ? '~' : '*', s.items().size(), s.items(), protocol, out);
      case Reply.Map m -> {
        List<Reply> items = m.keysAndValues();
        writeAggregate(
            resp3 ? '%' : '*', resp3 ? items.size() / 2 : items.size(), items, protocol, out);
      }
      case Reply.Double d -> writeDouble(d.value(), resp3, out);
      case Reply.Bool b -> {
        if (resp3) {
          out.writeBytes(b.value() ? TRUE : FALSE);
        } else {
          out.writeBytes(INTEGERS[b.value() ? 2 : 1]);
        }
      }
      case Reply.Verbatim v -> writeVerbatim(v, resp3, out);
      case Reply.None n -> {
        // nothing goes on the wire
      }
      case Reply.Deferred d ->
          throw new IllegalStateException("a deferred reply is written once it is resolved");
    }
  }

  private static void writeSimple(String text, ByteBuf out) {
    if (text.equals("OK")) {
      out.writeBytes(OK);
    } else if (text.equals("PONG")) {
      out.writeBytes(PONG);
    } else {
      writeLine((byte) '+', text, out);
    }
  }

  /** {@code <prefix><text>\r\n}, the text in UTF-8 with any CR or LF replaced by a space. */
  private static void writeLine(byte prefix, String text, ByteBuf out) {
    out.writeByte(prefix);
    int start = out.writerIndex();
    int length = ByteBufUtil.writeUtf8(out, text);
    // A line break inside would end the reply early and desynchronize the client.
    int at;
    while (length > 0 && (at = out.forEachByte(start, length, NOT_CR_OR_LF)) >= 0) {
      out.setByte(at, ' ');
      length -= at + 1 - start;
      start = at + 1;
    }
    out.writeShort(CRLF);
  }

  private static void writeInteger(long value, ByteBuf out) {
    if (value >= -1 && value < CACHED - 1) {
      out.writeBytes(INTEGERS[(int) value + 1]);
    } else {
      writeNumberLine((byte) ':', value, out);
    }
  }

  private static void writeBulk(byte[] bytes, ByteBuf out) {
    writeLength(BULK_HEADERS, '$', bytes.length, out);
    out.writeBytes(bytes);
    out.writeShort(CRLF);
  }

  private static void writeAggregate(
      char prefix, int count, List<Reply> items, int protocol, ByteBuf out) {
    if (prefix == '*') {
      writeLength(ARRAY_HEADERS, '*', count, out);
    } else {
      writeNumberLine((byte) prefix, count, out);
    }
    // By index: an iterator per aggregate was a query's largest garbage after its arguments.
    for (int i = 0; i < items.size(); i++) {
      write(items.get(i), protocol, out);
    }
  }

  private static void writeLength(byte[][] cache, char prefix, int length, ByteBuf out) {
    if (length < CACHED) {
      out.writeBytes(cache[length]);
    } else {
      writeNumberLine((byte) prefix, length, out);
    }
  }

  private static void writeDouble(double value, boolean resp3, ByteBuf out) {
    byte[] text = DoubleFormat.special(value);
    if (text == null && DoubleFormat.isPrintedAsInteger(value)) {
      long integer = (long) value;
      if (resp3) {
        writeNumberLine((byte) ',', integer, out);
      } else {
        writeLength(BULK_HEADERS, '$', decimalLength(integer), out);
        writeLong(integer, out);
        out.writeShort(CRLF);
      }
      return;
    }
    if (text == null) {
      text = DoubleFormat.shortest(value);
    }
    if (resp3) {
      out.writeByte(',');
      out.writeBytes(text);
      out.writeShort(CRLF);
    } else {
      writeBulk(text, out);
    }
  }

  private static void writeVerbatim(Reply.Verbatim v, boolean resp3, ByteBuf out) {
    int textLength = ByteBufUtil.utf8Bytes(v.text());
    if (!resp3) {
      writeLength(BULK_HEADERS, '$', textLength, out);
    } else {
      writeNumberLine((byte) '=', textLength + 4L, out);
      String format = v.format();
      // The format is three ASCII letters (txt, mkd); anything else would break the framing.
      if (format.length() == 3 && ByteBufUtil.utf8Bytes(format) == 3) {
        ByteBufUtil.writeAscii(out, format);
      } else {
        out.writeBytes(VERBATIM_DEFAULT_FORMAT);
      }
      out.writeByte(':');
    }
    ByteBufUtil.writeUtf8(out, v.text());
    out.writeShort(CRLF);
  }

  private static void writeNumberLine(byte prefix, long value, ByteBuf out) {
    out.writeByte(prefix);
    writeLong(value, out);
    out.writeShort(CRLF);
  }

  /** Prints {@code value} in decimal straight into the buffer, allocating nothing. */
  static void writeLong(long value, ByteBuf out) {
    if (value == Long.MIN_VALUE) {
      out.writeBytes(LONG_MIN);
      return;
    }
    if (value < 0) {
      out.writeByte('-');
      value = -value;
    }
    int digits = decimalLength(value);
    out.ensureWritable(digits);
    int end = out.writerIndex() + digits;
    for (int i = end - 1; i >= end - digits; i--) {
      out.setByte(i, (int) ('0' + value % 10));
      value /= 10;
    }
    out.writerIndex(end);
  }

  /** The number of characters writeLong prints for {@code value}. */
  static int decimalLength(long value) {
    if (value == Long.MIN_VALUE) {
      return LONG_MIN.length;
    }
    int length = value < 0 ? 2 : 1;
    for (long v = Math.abs(value); v >= 10; v /= 10) {
      length++;
    }
    return length;
  }

  private static byte[][] lines(char prefix, int first) {
    byte[][] lines = new byte[CACHED][];
    for (int i = 0; i < CACHED; i++) {
      lines[i] = ascii(prefix + Integer.toString(first + i) + "\r\n");
    }
    return lines;
  }

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
