package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.reply.Reply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Golden bytes for every reply shape, in RESP2 and RESP3. */
class RespEncoderTest {

  @BeforeAll
  static void paranoidLeakDetection() {
    NettyLeaks.enable();
  }

  @AfterAll
  static void noLeaks() {
    NettyLeaks.assertNone();
  }

  @Test
  void write_simple() {
    assertBoth(Reply.OK, "+OK\r\n");
    assertBoth(Reply.simple("PONG"), "+PONG\r\n");
    assertBoth(Reply.simple("QUEUED"), "+QUEUED\r\n");
    assertBoth(Reply.simple(""), "+\r\n");
  }

  @Test
  void write_simpleOrErrorWithLineBreaks_brokenLinesBecomeSpaces() {
    assertBoth(Reply.simple("a\r\nb\nc\r"), "+a  b c \r\n");
    assertBoth(Reply.err("bad\r\n+OK"), "-ERR bad  +OK\r\n");
  }

  @Test
  void write_textInUtf8() {
    assertThat(bytes(Reply.simple("é"), 2))
        .containsExactly('+', 0xc3 - 256, 0xa9 - 256, '\r', '\n');
    assertThat(bytes(Reply.bulk("é"), 3))
        .containsExactly('$', '2', '\r', '\n', 0xc3 - 256, 0xa9 - 256, '\r', '\n');
  }

  @Test
  void write_error() {
    assertBoth(Reply.err("unknown command"), "-ERR unknown command\r\n");
    assertBoth(
        Reply.error("WRONGTYPE Operation against a key holding the wrong kind of value"),
        "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
  }

  @Test
  void write_integer() {
    assertBoth(Reply.ZERO, ":0\r\n");
    assertBoth(Reply.ONE, ":1\r\n");
    assertBoth(Reply.integer(-1), ":-1\r\n");
    assertBoth(Reply.integer(-2), ":-2\r\n");
    assertBoth(Reply.integer(RespEncoder.CACHED - 2), ":510\r\n");
    assertBoth(Reply.integer(RespEncoder.CACHED - 1), ":511\r\n");
    assertBoth(Reply.integer(1_000_000_007), ":1000000007\r\n");
    assertBoth(Reply.integer(Long.MAX_VALUE), ":9223372036854775807\r\n");
    assertBoth(Reply.integer(Long.MIN_VALUE), ":-9223372036854775808\r\n");
    assertBoth(Reply.integer(-1234567890123L), ":-1234567890123\r\n");
  }

  @Test
  void write_integer_everyLengthAndEveryPowerOfTensEdge_asLongToString() {
    // Each length from 1 to 19, at both ends of it, either sign, and a spread of values between,
    // must print as Long.toString does, and decimalLength must agree with it.
    List<Long> values = new ArrayList<>(List.of(0L, Long.MAX_VALUE, Long.MIN_VALUE));
    long p = 1;
    for (int zeros = 0; zeros <= 18; zeros++, p *= 10) { // 10^18 is the last power below 2^63
      values.addAll(List.of(p - 1, p, p + 1, 2 * p - 1, 9 * p, 9 * p + p / 2));
    }
    java.util.Random random = new java.util.Random(20261122);
    for (int i = 0; i < 10_000; i++) {
      values.add(random.nextLong() >> random.nextInt(64));
    }
    for (long v : List.copyOf(values)) {
      values.add(-v);
    }
    for (long v : values) {
      String text = Long.toString(v);
      assertThat(RespEncoder.decimalLength(v)).as("%d", v).isEqualTo(text.length());
      ByteBuf out = Unpooled.buffer(4); // grows as it is written
      // A byte before and after: the digits must land exactly, without touching their neighbours.
      out.writeByte('<');
      RespEncoder.writeLong(v, out);
      out.writeByte('>');
      assertThat(out.toString(StandardCharsets.US_ASCII)).isEqualTo("<" + text + ">");
      out.release();
    }
  }

  @Test
  void write_bulk() {
    assertBoth(Reply.bulk("foo"), "$3\r\nfoo\r\n");
    assertBoth(Reply.bulk(new byte[0]), "$0\r\n\r\n");
    assertBoth(Reply.bulk(new byte[] {'\r', '\n', 0}), "$3\r\n\r\n\0\r\n");
    String big = "x".repeat(RespEncoder.CACHED);
    assertBoth(Reply.bulk(big), "$512\r\n" + big + "\r\n");
  }

  @Test
  void write_nulls() {
    assertThat(encode(Reply.NULL, 2)).isEqualTo("$-1\r\n");
    assertThat(encode(Reply.NULL, 3)).isEqualTo("_\r\n");
    assertThat(encode(Reply.NULL_ARRAY, 2)).isEqualTo("*-1\r\n");
    assertThat(encode(Reply.NULL_ARRAY, 3)).isEqualTo("_\r\n");
  }

  @Test
  void write_array() {
    assertBoth(Reply.EMPTY_ARRAY, "*0\r\n");
    assertBoth(
        Reply.array(Reply.bulk("a"), Reply.integer(7), Reply.array(Reply.OK)),
        "*3\r\n$1\r\na\r\n:7\r\n*1\r\n+OK\r\n");
    List<Reply> many = Collections.nCopies(600, Reply.ZERO);
    assertBoth(Reply.array(many), "*600\r\n" + ":0\r\n".repeat(600));
  }

  @Test
  void write_intRows_asArraysOfIntegers() {
    assertBoth(new Reply.IntRows(new long[0], 1), "*0\r\n");
    assertBoth(
        new Reply.IntRows(new long[] {0, -1, 511, 512, Long.MIN_VALUE}, 5),
        "*1\r\n*5\r\n:0\r\n:-1\r\n:511\r\n:512\r\n:-9223372036854775808\r\n");
    assertBoth(
        new Reply.IntRows(new long[] {3, 4, 5, 6}, 2),
        "*2\r\n*2\r\n:3\r\n:4\r\n*2\r\n:5\r\n:6\r\n");
    assertBoth(
        new Reply.IntRows(new long[] {3, 4, 5}, 1), "*3\r\n*1\r\n:3\r\n*1\r\n:4\r\n*1\r\n:5\r\n");
    assertThat(io.idem.server.reply.Replies.show(new Reply.IntRows(new long[] {1, -2, 3, 4}, 2)))
        .isEqualTo("[[(integer) 1, (integer) -2], [(integer) 3, (integer) 4]]");
    assertThat(io.idem.server.reply.Replies.show(new Reply.IntRows(new long[0], 3)))
        .isEqualTo("[]");
    assertThat(new Reply.IntRows(new long[] {1, 2}, 1))
        .isEqualTo(new Reply.IntRows(new long[] {1, 2}, 1))
        .hasSameHashCodeAs(new Reply.IntRows(new long[] {1, 2}, 1))
        .isNotEqualTo(new Reply.IntRows(new long[] {1, 2}, 2));
    assertThatThrownBy(() -> new Reply.IntRows(new long[3], 2))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Reply.IntRows(new long[0], 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void write_map() {
    Reply map = Reply.map(List.of(Reply.bulk("a"), Reply.ONE, Reply.bulk("b"), Reply.NULL));
    assertThat(encode(map, 2)).isEqualTo("*4\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n$-1\r\n");
    assertThat(encode(map, 3)).isEqualTo("%2\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n_\r\n");
    assertThat(encode(Reply.map(List.of()), 3)).isEqualTo("%0\r\n");
    List<Reply> big = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      big.add(Reply.ZERO);
    }
    assertThat(encode(Reply.map(big), 2)).startsWith("*600\r\n:0\r\n");
    assertThat(encode(Reply.map(big), 3)).startsWith("%300\r\n:0\r\n");
  }

  @Test
  void write_set() {
    Reply set = new Reply.Set(List.of(Reply.bulk("x"), Reply.bulk("y")));
    assertThat(encode(set, 2)).isEqualTo("*2\r\n$1\r\nx\r\n$1\r\ny\r\n");
    assertThat(encode(set, 3)).isEqualTo("~2\r\n$1\r\nx\r\n$1\r\ny\r\n");
  }

  @Test
  void write_double() {
    assertDouble(1.5, "1.5");
    assertDouble(3.0, "3");
    assertDouble(-2.0, "-2");
    assertDouble(0.0, "0");
    assertDouble(-0.0, "-0");
    assertDouble(Double.POSITIVE_INFINITY, "inf");
    assertDouble(Double.NEGATIVE_INFINITY, "-inf");
    assertDouble(Double.NaN, "nan");
    assertDouble(0.1, "0.1");
    assertDouble(1e-7, "1e-7");
    assertDouble(1e300, "1e+300");
    assertDouble(4611686018427387904.0, "4611686018427387904");
    assertDouble(-Double.MAX_VALUE, "-1.7976931348623157e+308");
  }

  @Test
  void write_bool() {
    assertThat(encode(new Reply.Bool(true), 2)).isEqualTo(":1\r\n");
    assertThat(encode(new Reply.Bool(false), 2)).isEqualTo(":0\r\n");
    assertThat(encode(new Reply.Bool(true), 3)).isEqualTo("#t\r\n");
    assertThat(encode(new Reply.Bool(false), 3)).isEqualTo("#f\r\n");
  }

  @Test
  void write_verbatim() {
    Reply v = new Reply.Verbatim("txt", "Some string");
    assertThat(encode(v, 2)).isEqualTo("$11\r\nSome string\r\n");
    assertThat(encode(v, 3)).isEqualTo("=15\r\ntxt:Some string\r\n");
    assertThat(encode(new Reply.Verbatim("mkd", "# é\r\n"), 3))
        .isEqualTo("=10\r\nmkd:# \u00c3\u00a9\r\n\r\n");
  }

  @Test
  void write_verbatimWithABadFormat_txt() {
    assertThat(encode(new Reply.Verbatim("markdown", "x"), 3)).isEqualTo("=5\r\ntxt:x\r\n");
    assertThat(encode(new Reply.Verbatim("é!", "x"), 3)).isEqualTo("=5\r\ntxt:x\r\n");
  }

  @Test
  void write_nestedResp3InResp2_fallsBackAtEveryLevel() {
    Reply reply =
        Reply.array(
            Reply.map(List.of(Reply.bulk("k"), new Reply.Double(2.5))),
            new Reply.Set(List.of(new Reply.Bool(true))),
            Reply.NULL);
    assertThat(encode(reply, 2))
        .isEqualTo("*3\r\n*2\r\n$1\r\nk\r\n$3\r\n2.5\r\n*1\r\n:1\r\n$-1\r\n");
    assertThat(encode(reply, 3)).isEqualTo("*3\r\n%1\r\n$1\r\nk\r\n,2.5\r\n~1\r\n#t\r\n_\r\n");
  }

  @Test
  void write_commonReplies_allocateNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    // An untracked buffer: a leak-tracked one allocates a trace record per write at this level.
    ByteBuf out = Unpooled.wrappedBuffer(new byte[1 << 20]);
    Reply[] replies = {
      Reply.OK,
      Reply.ZERO,
      Reply.ONE,
      Reply.integer(42),
      Reply.integer(123_456_789_012L),
      Reply.NULL,
      Reply.bulk("value"),
      new Reply.Bool(true),
      new Reply.Double(3.0)
    };
    // The fewest bytes of several rounds: a round may catch the JIT or the VM allocating for
    // itself (a CI run once saw 1,376 bytes), but an encoder that allocates per write would
    // cost at least 16 bytes x 180,000 writes in every round.
    long fewest = Long.MAX_VALUE;
    for (int round = 0; round < 8; round++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 10_000; i++) {
        out.clear();
        for (Reply r : replies) {
          RespEncoder.write(r, 2, out);
          RespEncoder.write(r, 3, out);
        }
      }
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;
      if (round >= 2) {
        fewest = Math.min(fewest, allocated);
      }
    }
    assertThat(fewest).as("bytes allocated by 180,000 writes").isLessThan(1024);
  }

  private static void assertDouble(double value, String text) {
    assertThat(encode(new Reply.Double(value), 3)).isEqualTo("," + text + "\r\n");
    assertThat(encode(new Reply.Double(value), 2))
        .isEqualTo("$" + text.length() + "\r\n" + text + "\r\n");
  }

  private static void assertBoth(Reply reply, String expected) {
    assertThat(encode(reply, 2)).as("RESP2").isEqualTo(expected);
    assertThat(encode(reply, 3)).as("RESP3").isEqualTo(expected);
  }

  /** The bytes as ISO-8859-1 text, one char per byte. */
  static String encode(Reply reply, int protocol) {
    return new String(bytes(reply, protocol), StandardCharsets.ISO_8859_1);
  }

  static byte[] bytes(Reply reply, int protocol) {
    ByteBuf out = ByteBufAllocator.DEFAULT.buffer(16);
    try {
      RespEncoder.write(reply, protocol, out);
      byte[] b = new byte[out.readableBytes()];
      out.readBytes(b);
      return b;
    } finally {
      out.release();
    }
  }
}
