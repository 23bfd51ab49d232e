package io.idem.server.resp;

import static io.idem.server.resp.Decoding.byteByByte;
import static io.idem.server.resp.Decoding.bytes;
import static io.idem.server.resp.Decoding.decode;
import static io.idem.server.resp.Decoding.resp;
import static io.idem.server.resp.Decoding.whole;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RespDecoderTest {

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @BeforeAll
  static void paranoidLeakDetection() {
    NettyLeaks.enable();
  }

  @AfterAll
  static void noLeaks() {
    NettyLeaks.assertNone();
  }

  // ---- requests

  @Test
  void decode_respArray_command() {
    assertThat(whole("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n"))
        .containsExactly("[SET k value]");
  }

  @Test
  void decode_binaryAndEmptyArguments_keptExactly() {
    byte[] binary = {0, '\r', '\n', (byte) 0xff, ' '};
    assertThat(whole(resp(bytes("ECHO"), binary, new byte[0])))
        .containsExactly("[ECHO \\x00\\x0d\\x0a\\xff\\x20 ]");
  }

  @Test
  void decode_manyArguments_pastTheSlotsMadeUpFront_allInOrder() {
    byte[][] args = new byte[200][];
    StringBuilder expected = new StringBuilder("[");
    for (int i = 0; i < args.length; i++) {
      args[i] = bytes("a" + i);
      expected.append(i == 0 ? "" : " ").append("a").append(i);
    }
    expected.append(']');
    byte[] input = resp(args);
    assertThat(whole(input)).containsExactly(expected.toString());
    assertThat(byteByByte(input)).containsExactly(expected.toString());
  }

  @Test
  void decode_pipeline_commandsInArrivalOrder() {
    String input = "*1\r\n$4\r\nPING\r\nECHO a\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\nQUIT\n";
    assertThat(whole(input)).containsExactly("[PING]", "[ECHO a]", "[GET k]", "[QUIT]");
  }

  @Test
  void decode_emptyAndNegativeArrays_skippedAsRedisDoes() {
    assertThat(whole("*0\r\n*-1\r\n*-9223372036854775808\r\n*1\r\n$4\r\nPING\r\n"))
        .containsExactly("[PING]");
  }

  @Test
  void decode_emptyLines_skipped() {
    assertThat(whole("\r\n\n   \t\r\nPING\r\n\r\n")).containsExactly("[PING]");
  }

  @Test
  void decode_inlineWithLfOnly_accepted() {
    assertThat(whole("SET k v\nGET k\n")).containsExactly("[SET k v]", "[GET k]");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "ECHO \"a b\"|[ECHO a\\x20b]",
        "ECHO 'a b'|[ECHO a\\x20b]",
        "ECHO \"\\x41\\x4g\\x\"|[ECHO Ax4gx]",
        "ECHO \"\\n\\r\\t\\b\\a\\\\\\\"\\q\"|[ECHO \\x0a\\x0d\\x09\\x08\\x07\\x5c\"q]",
        "ECHO 'it\\'s' 'a\\b'|[ECHO it's a\\x5cb]",
        "ECHO a\"b c\"|[ECHO ab\\x20c]",
        "ECHO \"\" ''|[ECHO  ]",
        "  ECHO    x  |[ECHO x]",
      })
  void decode_inlineQuoting_asRedisSplitsIt(String line, String expected) {
    assertThat(whole(line + "\r\n")).containsExactly(expected);
  }

  @Test
  void decode_inlineControlBytes_asRedisSplitsThem() {
    // \v and \f are blanks between words but not word ends; CR inside a line ends a word.
    assertThat(whole("\u000bECHO a\u000bb c\rd\r\n")).containsExactly("[ECHO a\\x0bb c d]");
  }

  @Test
  void decode_inlineQuotedCrBeforeLf_isTheLineEnd() {
    assertThat(whole("ECHO \"a\r\n")).containsExactly("ERR " + RespDecoder.UNBALANCED_QUOTES);
    assertThat(whole("ECHO \"a\r\"\r\n")).containsExactly("[ECHO a\\x0d]");
  }

  // ---- splitting

  /** Valid and invalid inputs; each must decode the same however it is cut. */
  static final List<byte[]> CORPUS =
      List.of(
          bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n*1\r\n$4\r\nPING\r\n"),
          bytes("PING\r\nECHO \"a\\x41 b\" 'c d'\r\n\r\n*0\r\nGET x\n"),
          bytes("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n"),
          bytes("*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPINGxx"),
          bytes("*1\r\n$4\r\nPING\r\n*x\r\n*1\r\n$4\r\nPING\r\n"),
          bytes("*2\r\n$3\r\nGET\r\n:1\r\n"),
          bytes("ECHO \"unbalanced\r\nPING\r\n"),
          bytes("*1\r\n$4\rxPING\r\n"),
          resp(bytes("SET"), bytes("k"), new byte[20_000])); // several chunks when in pieces

  @Test
  void decode_byteByByte_sameAsWhole() {
    for (byte[] input : CORPUS) {
      assertThat(byteByByte(input))
          .as(new String(input, 0, Math.min(20, input.length)))
          .isEqualTo(whole(input));
    }
  }

  @Test
  void decode_randomSplits_sameAsWhole() {
    SplittableRandom random = new SplittableRandom(20240601);
    for (byte[] input : CORPUS) {
      List<String> expected = whole(input);
      for (int trial = 0; trial < 200; trial++) {
        int meanPiece = Math.max(input.length / 200, 1 + random.nextInt(40));
        int[] cuts = Decoding.randomCuts(input.length, meanPiece, random);
        assertThat(decode(input, cuts, () -> RespLimits.DEFAULTS))
            .as("cuts %s", Arrays.toString(cuts))
            .isEqualTo(expected);
      }
    }
  }

  @Test
  void decode_directBuffersInRandomSplits_sameAsWhole() {
    // Bulks are copied out of a direct buffer through its NIO view, not readBytes: same bytes.
    SplittableRandom random = new SplittableRandom(20261122);
    for (byte[] input : CORPUS) {
      List<String> expected = whole(input);
      for (int trial = 0; trial < 50; trial++) {
        int meanPiece = Math.max(input.length / 50, 1 + random.nextInt(40));
        int[] cuts = trial == 0 ? new int[0] : Decoding.randomCuts(input.length, meanPiece, random);
        List<String> shown = new ArrayList<>();
        for (Object o :
            Decoding.decodeObjects(input, cuts, new RespDecoder(() -> RespLimits.DEFAULTS), true)) {
          shown.add(Decoding.show(o));
        }
        assertThat(shown).as("cuts %s", Arrays.toString(cuts)).isEqualTo(expected);
      }
    }
  }

  @Test
  void decode_respInPieces_consumesEveryByteAtOnce() {
    // What makes the cumulation cheap: after each read nothing is left in it, so Netty hands the
    // next read's buffer over without copying.
    byte[] input = resp("SET", "key", "a value of some length");
    for (int cut = 1; cut < input.length; cut++) {
      RespDecoder decoder = new RespDecoder(() -> RespLimits.DEFAULTS);
      EmbeddedChannel channel = new EmbeddedChannel(decoder);
      channel.writeInbound(channel.alloc().buffer().writeBytes(input, 0, cut));
      assertThat(decoder.bufferedBytes()).as("cut at %s", cut).isZero();
      channel.writeInbound(channel.alloc().buffer().writeBytes(input, cut, input.length - cut));
      assertThat(decoder.bufferedBytes()).isZero();
      assertThat(decoder.isIdle()).isTrue();
      assertThat(Decoding.show(channel.readInbound()))
          .isEqualTo("[SET key a\\x20value\\x20of\\x20some\\x20length]");
      assertThat(channel.finishAndReleaseAll()).isFalse();
    }
  }

  // ---- protocol errors, with Redis's texts

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "*abc\\r\\n|invalid multibulk length",
        "*\\r\\n|invalid multibulk length",
        "*-\\r\\n|invalid multibulk length",
        "*01\\r\\n|invalid multibulk length",
        "*-0\\r\\n|invalid multibulk length",
        "*+1\\r\\n|invalid multibulk length",
        "* 1\\r\\n|invalid multibulk length",
        "*2147483648\\r\\n|invalid multibulk length",
        "*1048577\\r\\n|invalid multibulk length",
        "*-9223372036854775809\\r\\n|invalid multibulk length",
        "*1\\r\\n$-1\\r\\n|invalid bulk length",
        "*1\\r\\n$03\\r\\n|invalid bulk length",
        "*1\\r\\n$\\r\\n|invalid bulk length",
        "*1\\r\\n$-0\\r\\n|invalid bulk length",
        "*1\\r\\n$1x\\r\\n|invalid bulk length",
        "*1\\r\\n$536870913\\r\\n|invalid bulk length",
        "*1\\r\\n$9223372036854775807\\r\\n|invalid bulk length",
        "*1\\r\\n$99999999999999999999\\r\\n|invalid bulk length",
        "*1\\r\\nfoo\\r\\n|expected '$', got 'f'",
        "*1\\r\\n\\r\\n|expected '$', got ' '",
        "*1\\r\\n:1\\r\\n|expected '$', got ':'",
        "*3\\r\\n$3\\r\\nSET\\r\\n$1\\r\\nx\\r\\nfooz\\r\\n|expected '$', got 'f'",
        "ECHO \"a\\r\\n|unbalanced quotes in request",
        "ECHO 'a\\r\\n|unbalanced quotes in request",
        "ECHO \"a\"b\\r\\n|unbalanced quotes in request",
        "ECHO \"a\\\\\\r\\n|unbalanced quotes in request",
        "*1\\r\\n$4\\r\\nPINGxy|expected '\\r\\n'",
        "*1\\r\\n$4\\r\\nPING\\rx|expected '\\r\\n'",
        "*1\\rx$4\\r\\nPING\\r\\n|expected '\\r\\n'",
        "*1\\r\\n$4\\rxPING\\r\\n|expected '\\r\\n'",
      })
  void decode_badRequest_redisErrorText(String input, String message) {
    byte[] in = bytes(unescape(input));
    List<String> expected = List.of("ERR Protocol error: " + message);
    assertThat(whole(in)).isEqualTo(expected);
    assertThat(byteByByte(in)).isEqualTo(expected);
  }

  @Test
  void protocolError_toReply_errPrefixedOnce() {
    RespDecoder.ProtocolError error =
        new RespDecoder.ProtocolError(RespDecoder.INVALID_BULK_LENGTH);
    assertThat(RespEncoderTest.encode(error.toReply(), 2))
        .isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
  }

  @Test
  void decode_afterProtocolError_commandsBeforeKeptAndTheRestDiscarded() {
    RespDecoder decoder = new RespDecoder(() -> RespLimits.DEFAULTS);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    channel.writeInbound(channel.alloc().buffer().writeBytes(bytes("PING\r\n*x\r\nPING\r\n")));
    channel.writeInbound(channel.alloc().buffer().writeBytes(resp("PING")));
    List<String> out = new ArrayList<>();
    Object o;
    while ((o = channel.readInbound()) != null) {
      out.add(Decoding.show(o));
    }
    assertThat(out).containsExactly("[PING]", "ERR " + RespDecoder.INVALID_MULTIBULK_LENGTH);
    assertThat(decoder.bufferedBytes()).isZero();
    assertThat(channel.finishAndReleaseAll()).isFalse();
  }

  // ---- limits

  @Test
  void decode_tooLongInlineLine_tooBigInlineRequest() {
    RespLimits limits = new RespLimits(1 << 20, 100, 10, 1 << 20);
    assertThat(decode(bytes("ECHO 12345\r\n"), new int[0], () -> limits))
        .containsExactly("[ECHO 12345]");
    assertThat(decode(bytes("ECHO 123456\r\n"), new int[0], () -> limits))
        .containsExactly("ERR " + RespDecoder.TOO_BIG_INLINE);
    // Unfinished: refused as soon as it is longer than the limit, however it arrives.
    assertThat(decode(bytes("ECHO 1234567"), new int[] {3, 6}, () -> limits))
        .containsExactly("ERR " + RespDecoder.TOO_BIG_INLINE);
    // The CR of the terminator does not count, even before the LF arrives.
    assertThat(decode(bytes("ECHO 12345\r"), new int[] {3}, () -> limits)).isEmpty();
  }

  @Test
  void decode_tooLongHeaderLines_tooBigCountStrings() {
    RespLimits limits = new RespLimits(1 << 20, 100, 10, 1 << 20);
    assertThat(decode(bytes("*1234567890"), new int[0], () -> limits))
        .containsExactly("ERR " + RespDecoder.TOO_BIG_MBULK_COUNT);
    assertThat(decode(bytes("*1\r\n$1234567890"), new int[] {5}, () -> limits))
        .containsExactly("ERR " + RespDecoder.TOO_BIG_BULK_COUNT);
    assertThat(decode(bytes("*1\r\n$123456789"), new int[0], () -> limits)).isEmpty();
    assertThat(whole(repeat('1', 65_537))).containsExactly("ERR " + RespDecoder.TOO_BIG_INLINE);
    assertThat(whole("*" + repeat('1', 65_536)))
        .containsExactly("ERR " + RespDecoder.TOO_BIG_MBULK_COUNT);
  }

  @Test
  void decode_arrayLimit_invalidMultibulkLength() {
    RespLimits limits = new RespLimits(1 << 20, 3, 1024, 1 << 20);
    assertThat(decode(resp("A", "B", "C"), new int[0], () -> limits)).containsExactly("[A B C]");
    assertThat(decode(resp("A", "B", "C", "D"), new int[0], () -> limits))
        .containsExactly("ERR " + RespDecoder.INVALID_MULTIBULK_LENGTH);
  }

  @Test
  void decode_bulkLimit_invalidBulkLength() {
    RespLimits limits = new RespLimits(5, 100, 1024, 1 << 20);
    assertThat(decode(resp("ECHO", "12345"), new int[0], () -> limits))
        .containsExactly("[ECHO 12345]");
    assertThat(decode(resp("ECHO", "123456"), new int[0], () -> limits))
        .containsExactly("ERR " + RespDecoder.INVALID_BULK_LENGTH);
  }

  @Test
  void decode_queryBufferLimit_countsTheRequestsArgumentsAndTheBulkDeclared() {
    RespLimits limits = new RespLimits(100, 100, 1024, 10);
    assertThat(decode(resp("SET", "k", "123456"), new int[0], () -> limits))
        .containsExactly("[SET k 123456]");
    assertThat(decode(resp("SET", "k", "1234567"), new int[0], () -> limits))
        .containsExactly("ERR " + RespDecoder.QUERY_BUFFER_LIMIT);
    // Refused at the header, before the bulk's bytes are waited for.
    assertThat(decode(bytes("*1\r\n$11\r\n"), new int[0], () -> limits))
        .containsExactly("ERR " + RespDecoder.QUERY_BUFFER_LIMIT);
    assertThat(decode(bytes("ECHO 1234567"), new int[0], () -> limits))
        .containsExactly("ERR " + RespDecoder.QUERY_BUFFER_LIMIT);
  }

  @Test
  void decode_limitsChangedBetweenReads_applyToTheNextHeader() {
    AtomicReference<RespLimits> limits = new AtomicReference<>(RespLimits.DEFAULTS);
    RespDecoder decoder = new RespDecoder(limits::get);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    channel.writeInbound(channel.alloc().buffer().writeBytes(resp("ECHO", "123456")));
    limits.set(new RespLimits(5, 100, 1024, 1 << 20));
    channel.writeInbound(channel.alloc().buffer().writeBytes(resp("ECHO", "123456")));
    List<Object> out = new ArrayList<>();
    Decoding.drain(channel, out);
    assertThat(out.stream().map(Decoding::show))
        .containsExactly("[ECHO 123456]", "ERR " + RespDecoder.INVALID_BULK_LENGTH);
    channel.finishAndReleaseAll();
  }

  @Test
  void decode_unauthenticated_redisTighterBounds() {
    AtomicBoolean authRequired = new AtomicBoolean(true);
    String eleven = "*11\r\n";
    String ten = "*10\r\n" + "$1\r\nx\r\n".repeat(10);
    assertThat(run(authRequired, ten)).containsExactly("[x x x x x x x x x x]");
    assertThat(run(authRequired, eleven))
        .containsExactly("ERR " + RespDecoder.UNAUTHENTICATED_MULTIBULK);
    assertThat(run(authRequired, "*1\r\n$16385\r\n"))
        .containsExactly("ERR " + RespDecoder.UNAUTHENTICATED_BULK);
    assertThat(run(authRequired, "ECHO " + repeat('x', 1 << 20))) // long lines allowed by run
        .containsExactly("ERR " + RespDecoder.QUERY_BUFFER_LIMIT);
    authRequired.set(false);
    assertThat(run(authRequired, eleven)).isEmpty();
    assertThat(run(authRequired, "*1\r\n$16385\r\n")).isEmpty();
  }

  @Test
  void decode_unfinishedRequest_reportsTheBytesItHolds_andZeroOnceComplete() {
    List<Long> reports = new ArrayList<>();
    RespDecoder decoder =
        new RespDecoder(
            () -> RespLimits.DEFAULTS,
            () -> false,
            bytes -> {
              reports.add(bytes);
              return true;
            });
    List<String> seen = new ArrayList<>();
    EmbeddedChannel channel =
        new EmbeddedChannel(
            decoder,
            new io.netty.channel.ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                seen.add(Decoding.show(msg));
              }
            });
    channel.writeInbound(channel.alloc().buffer().writeBytes(bytes("PING\r\n")));
    assertThat(reports).as("a request that arrives whole is not counted").isEmpty();
    channel.writeInbound(
        channel.alloc().buffer().writeBytes(bytes("*2\r\n$4\r\nECHO\r\n$100000\r\n")));
    channel.writeInbound(channel.alloc().buffer().writeBytes(new byte[30_000]));
    channel.writeInbound(channel.alloc().buffer().writeBytes(new byte[30_000]));
    assertThat(reports).hasSize(3).startsWith(20L);
    assertThat(reports.get(2))
        .as("the argument so far and the bulk's pieces")
        .isBetween(60_000L, 61_000L);
    channel.writeInbound(channel.alloc().buffer().writeBytes(new byte[40_000]));
    channel.writeInbound(channel.alloc().buffer().writeBytes(bytes("\r\n")));
    assertThat(seen).hasSize(2);
    assertThat(reports.getLast()).as("complete: nothing held").isZero();
    channel.finishAndReleaseAll();
  }

  @Test
  void decode_refusedByTheClientsMemory_isAProtocolError() {
    RespDecoder decoder =
        new RespDecoder(() -> RespLimits.DEFAULTS, () -> false, bytes -> bytes < 10_000);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    channel.writeInbound(channel.alloc().buffer().writeBytes(bytes("*1\r\n$100000\r\n")));
    assertThat((Object) channel.readInbound()).isNull();
    channel.writeInbound(channel.alloc().buffer().writeBytes(new byte[20_000]));
    assertThat(Decoding.show(channel.readInbound()))
        .isEqualTo("ERR " + RespDecoder.MAXMEMORY_CLIENTS);
    channel.finishAndReleaseAll();
  }

  @Test
  void decode_authenticatedMidPipeline_nextCommandReadWithFullBounds() {
    // One command per decode: the handler runs AUTH before the next header is judged.
    AtomicBoolean authRequired = new AtomicBoolean(true);
    RespDecoder decoder =
        new RespDecoder(() -> RespLimits.DEFAULTS, authRequired::get, QueryMemory.NONE);
    List<String> seen = new ArrayList<>();
    EmbeddedChannel channel =
        new EmbeddedChannel(
            decoder,
            new io.netty.channel.ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                seen.add(Decoding.show(msg));
                authRequired.set(false);
              }
            });
    channel.writeInbound(
        channel
            .alloc()
            .buffer()
            .writeBytes(bytes("AUTH pw\r\n*11\r\n" + "$1\r\nx\r\n".repeat(11))));
    assertThat(seen).containsExactly("[AUTH pw]", "[x x x x x x x x x x x]");
    channel.finishAndReleaseAll();
  }

  // ---- memory

  @Test
  void decode_hugeDeclaredBulkAndFewBytes_costsWhatArrived() {
    RespDecoder decoder = new RespDecoder(() -> RespLimits.DEFAULTS);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    // Untracked buffers: at the paranoid leak level, tracked ones allocate a stack trace per use.
    ByteBuf header = Unpooled.wrappedBuffer(bytes("*1048576\r\n$536870912\r\n"));
    ByteBuf tenBytes = Unpooled.wrappedBuffer(bytes("0123456789"));
    channel.writeInbound(channel.alloc().buffer().writeBytes(bytes("PING\r\n"))); // warm up
    channel.readInbound();
    long before = THREADS.getCurrentThreadAllocatedBytes();
    channel.writeInbound(header);
    channel.writeInbound(tenBytes);
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated).isLessThan(RespDecoder.MIN_CHUNK + 4096);
    assertThat(decoder.bufferedBytes()).isZero();
    channel.finishAndReleaseAll();
  }

  @Test
  void decode_bigBulkIn64KiBPieces_twoCopiesOfItsBytesAtMost() {
    int size = 32 << 20;
    byte[] value = new byte[size];
    new SplittableRandom(7).nextBytes(value);
    byte[] input = resp(bytes("SET"), bytes("k"), value);
    RespDecoder decoder = new RespDecoder(() -> RespLimits.DEFAULTS);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    List<ByteBuf> pieces = new ArrayList<>();
    for (int from = 0; from < input.length; from += 65536) {
      int n = Math.min(65536, input.length - from);
      pieces.add(Unpooled.wrappedBuffer(input, from, n)); // untracked, as above
    }
    long before = THREADS.getCurrentThreadAllocatedBytes();
    for (ByteBuf piece : pieces) {
      channel.writeInbound(piece);
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    // The chunks as they arrive, then the argument they are joined into, and a little bookkeeping.
    assertThat(allocated).isLessThan(2L * size + (1 << 20));
    io.idem.server.request.Command command = channel.readInbound();
    assertThat(command.arg(2)).isEqualTo(value);
    channel.finishAndReleaseAll();
  }

  /** The defaults but 2 MiB lines, so an inline line can reach the unauthenticated 1 MiB bound. */
  private static final RespLimits LONG_LINES =
      new RespLimits(512L << 20, 1 << 20, 2 << 20, 1L << 30);

  private static List<String> run(AtomicBoolean authRequired, String input) {
    List<String> out = new ArrayList<>();
    for (Object o :
        Decoding.decodeObjects(
            bytes(input),
            new int[0],
            new RespDecoder(() -> LONG_LINES, authRequired::get, QueryMemory.NONE))) {
      out.add(Decoding.show(o));
    }
    return out;
  }

  private static String repeat(char c, int n) {
    return String.valueOf(c).repeat(n);
  }

  /** Reads \r, \n and \\ escapes written in a CSV source. */
  private static String unescape(String s) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char n = s.charAt(++i);
        b.write(n == 'r' ? '\r' : n == 'n' ? '\n' : n);
      } else {
        b.write(c);
      }
    }
    return b.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
  }
}
