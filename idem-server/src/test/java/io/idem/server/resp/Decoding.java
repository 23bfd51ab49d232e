package io.idem.server.resp;

import io.idem.server.request.Command;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/** Runs a RespDecoder in an EmbeddedChannel over input cut into pieces. */
final class Decoding {

  private Decoding() {}

  /** What the decoder emitted for {@code input} arriving in one piece, rendered by show(). */
  static List<String> whole(byte[] input) {
    return decode(input, new int[0], () -> RespLimits.DEFAULTS);
  }

  static List<String> whole(String input) {
    return whole(bytes(input));
  }

  /** The same, one byte per read. */
  static List<String> byteByByte(byte[] input) {
    int[] cuts = new int[Math.max(0, input.length - 1)];
    for (int i = 0; i < cuts.length; i++) {
      cuts[i] = i + 1;
    }
    return decode(input, cuts, () -> RespLimits.DEFAULTS);
  }

  /** Sorted, distinct cut points in (0, length), about one per {@code meanPiece} bytes. */
  static int[] randomCuts(int length, int meanPiece, SplittableRandom random) {
    List<Integer> cuts = new ArrayList<>();
    int at = 0;
    while (true) {
      at += 1 + random.nextInt(2 * meanPiece);
      if (at >= length) {
        break;
      }
      cuts.add(at);
    }
    return cuts.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Feeds input cut at {@code cuts}, each piece one read, and renders what was emitted. */
  static List<String> decode(byte[] input, int[] cuts, Supplier<RespLimits> limits) {
    List<String> shown = new ArrayList<>();
    for (Object o : decodeObjects(input, cuts, new RespDecoder(limits))) {
      shown.add(show(o));
    }
    return shown;
  }

  /** Feeds input cut at {@code cuts} through {@code decoder} and returns what it emitted. */
  static List<Object> decodeObjects(byte[] input, int[] cuts, RespDecoder decoder) {
    return decodeObjects(input, cuts, decoder, false);
  }

  /** As above, each read in a direct buffer if {@code direct} (a server's socket reads are). */
  static List<Object> decodeObjects(byte[] input, int[] cuts, RespDecoder decoder, boolean direct) {
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    try {
      List<Object> out = new ArrayList<>();
      int from = 0;
      for (int i = 0; i <= cuts.length; i++) {
        int to = i < cuts.length ? cuts[i] : input.length;
        if (to > from) {
          ByteBuf piece =
              (direct ? channel.alloc().directBuffer(to - from) : channel.alloc().buffer(to - from))
                  .writeBytes(input, from, to - from);
          channel.writeInbound(piece);
          drain(channel, out);
        }
        from = to;
      }
      return out;
    } finally {
      channel.finishAndReleaseAll();
    }
  }

  static void drain(EmbeddedChannel channel, List<Object> out) {
    Object o;
    while ((o = channel.readInbound()) != null) {
      out.add(o);
    }
  }

  /**
   * A command as {@code [SET k v]} with bytes outside printable ASCII as {@code \xHH} (and space as
   * {@code \x20}, so word boundaries show); an error as {@code ERR message}.
   */
  static String show(Object o) {
    if (o instanceof RespDecoder.ProtocolError e) {
      return "ERR " + e.message();
    }
    Command c = (Command) o;
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < c.size(); i++) {
      if (i > 0) {
        b.append(' ');
      }
      for (byte x : c.arg(i)) {
        if (x > ' ' && x < 0x7f && x != '\\') {
          b.append((char) x);
        } else {
          b.append(String.format("\\x%02x", x & 0xff));
        }
      }
    }
    return b.append(']').toString();
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** A command encoded as a RESP array of bulk strings, as clients send it. */
  static byte[] resp(byte[]... args) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.writeBytes(bytes("*" + args.length + "\r\n"));
    for (byte[] a : args) {
      out.writeBytes(bytes("$" + a.length + "\r\n"));
      out.writeBytes(a);
      out.writeBytes(bytes("\r\n"));
    }
    return out.toByteArray();
  }

  static byte[] resp(String... args) {
    byte[][] b = new byte[args.length][];
    for (int i = 0; i < args.length; i++) {
      b[i] = bytes(args[i]);
    }
    return resp(b);
  }
}
