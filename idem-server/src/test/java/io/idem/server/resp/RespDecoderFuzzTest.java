package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.idem.server.request.Command;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Feeds the decoder valid pipelines, mutations of them and random bytes, whole and cut at random
 * points, under default and tiny limits. The contract: it emits only commands and at most one
 * protocol error (last), with a known text; never throws; emits the same however the input is cut;
 * allocates no more than the input's size and the objects it emits, plus a constant; and when the
 * input is valid, emits exactly the commands that were encoded.
 */
class RespDecoderFuzzTest {

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** A partial bulk's first chunk and the decoder's and channel's own objects. */
  private static final long ALLOCATION_SLACK = 32 << 10;

  /** The objects of one emitted command beyond its argument bytes: record, arrays, lists. */
  private static final long ALLOCATION_PER_COMMAND = 512;

  /**
   * Direct buffers without leak tracking for the cumulation: at the paranoid level the other tests
   * set, a tracked buffer allocates a stack trace per use, which would be counted here.
   */
  private static final UnpooledByteBufAllocator UNTRACKED =
      new UnpooledByteBufAllocator(true, true);

  private static final Set<String> ERRORS =
      Set.of(
          RespDecoder.INVALID_MULTIBULK_LENGTH,
          RespDecoder.INVALID_BULK_LENGTH,
          RespDecoder.TOO_BIG_INLINE,
          RespDecoder.TOO_BIG_MBULK_COUNT,
          RespDecoder.TOO_BIG_BULK_COUNT,
          RespDecoder.UNBALANCED_QUOTES,
          RespDecoder.EXPECTED_CRLF,
          RespDecoder.QUERY_BUFFER_LIMIT);
  private static final Pattern EXPECTED_DOLLAR =
      Pattern.compile("Protocol error: expected '\\$', got '[ -~]'");

  private static final byte[] ALPHABET =
      "*$\r\n0123456789-+\"'\\x aZ".getBytes(StandardCharsets.UTF_8);

  /**
   * Runs every path once unmeasured: a first call can allocate for reasons of its own (class
   * initialization, the bootstrap of a string concatenation or a lambda).
   */
  @BeforeAll
  static void warmUp() {
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 3000; i++) {
      byte[] input = mutate(validPipeline(random, new ArrayList<>()), random);
      for (RespLimits limits : List.of(RespLimits.DEFAULTS, tinyLimits(random))) {
        decodeAll(input, new int[0], limits);
        decodeAll(input, randomCuts(input, random), limits);
      }
    }
    for (String bad :
        List.of("*x\r\n", "*1\r\n$x\r\n", "*1\r\nx\r\n", "\"\r\n", "*1\r\n$1\r\nxx", "*1\rx")) {
      decodeAll(ascii(bad), new int[0], RespLimits.DEFAULTS);
    }
  }

  private static void decodeAll(byte[] input, int[] cuts, RespLimits limits) {
    run(input, cuts, limits, false);
  }

  @Test
  void decode_validPipelines_commandsAsEncoded() {
    SplittableRandom random = new SplittableRandom(0x5EED_0001L);
    for (int i = 0; i < 50_000; i++) {
      List<byte[][]> commands = new ArrayList<>();
      byte[] input = validPipeline(random, commands);
      Outcome whole = run(input, new int[0], RespLimits.DEFAULTS);
      assertCommands(whole, commands, input);
      assertThat(whole.idleAndEmpty).isTrue();
      Outcome split = run(input, randomCuts(input, random), RespLimits.DEFAULTS);
      assertCommands(split, commands, input);
    }
  }

  @Test
  void decode_mutatedPipelines_sameOutcomeHoweverCut() {
    SplittableRandom random = new SplittableRandom(0x5EED_0002L);
    for (int i = 0; i < 120_000; i++) {
      byte[] input = mutate(validPipeline(random, new ArrayList<>()), random);
      RespLimits limits = random.nextInt(4) == 0 ? tinyLimits(random) : RespLimits.DEFAULTS;
      checkAnyInput(input, limits, random);
    }
  }

  @Test
  void decode_randomBytes_sameOutcomeHoweverCut() {
    SplittableRandom random = new SplittableRandom(0x5EED_0003L);
    for (int i = 0; i < 100_000; i++) {
      byte[] input = new byte[random.nextInt(80)];
      boolean fromAlphabet = random.nextBoolean();
      for (int j = 0; j < input.length; j++) {
        input[j] =
            fromAlphabet ? ALPHABET[random.nextInt(ALPHABET.length)] : (byte) random.nextInt(256);
      }
      RespLimits limits = random.nextInt(4) == 0 ? tinyLimits(random) : RespLimits.DEFAULTS;
      checkAnyInput(input, limits, random);
    }
  }

  private static void checkAnyInput(byte[] input, RespLimits limits, SplittableRandom random) {
    Outcome whole = run(input, new int[0], limits);
    assertWellFormed(whole.emitted, input);
    Outcome split = run(input, randomCuts(input, random), limits);
    if (!same(split.emitted, whole.emitted)) {
      fail("input %s: whole %s, cut %s", show(input), whole.shown(), split.shown());
    }
  }

  private static boolean same(List<Object> a, List<Object> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Object x = a.get(i);
      Object y = b.get(i);
      boolean equal =
          x instanceof Command cx
              ? y instanceof Command cy && Arrays.deepEquals(cx.args(), cy.args())
              : x.equals(y);
      if (!equal) {
        return false;
      }
    }
    return true;
  }

  /** Up to about 16 pieces of random sizes; sometimes one byte per piece for a short input. */
  private static int[] randomCuts(byte[] input, SplittableRandom random) {
    int meanPiece =
        input.length < 200 && random.nextInt(20) == 0
            ? 1
            : Math.max(1, input.length / (1 + random.nextInt(16)));
    return Decoding.randomCuts(input.length, meanPiece, random);
  }

  /** What one run emitted, and whether the decoder ended between requests holding nothing. */
  private record Outcome(List<Object> emitted, boolean idleAndEmpty) {
    List<String> shown() {
      return emitted.stream().map(Decoding::show).toList();
    }
  }

  /** Decodes {@code input} cut at {@code cuts}, asserting the allocation bound on the way. */
  private static Outcome run(byte[] input, int[] cuts, RespLimits limits) {
    return run(input, cuts, limits, true);
  }

  private static Outcome run(byte[] input, int[] cuts, RespLimits limits, boolean measure) {
    RespDecoder decoder = new RespDecoder(() -> limits);
    EmbeddedChannel channel = new EmbeddedChannel(decoder);
    channel.config().setAllocator(UNTRACKED);
    // Untracked buffers prepared beforehand, so only the decoding is measured.
    List<io.netty.buffer.ByteBuf> pieces = new ArrayList<>(cuts.length + 1);
    int from = 0;
    for (int i = 0; i <= cuts.length; i++) {
      int to = i < cuts.length ? cuts[i] : input.length;
      if (to > from) {
        pieces.add(Unpooled.wrappedBuffer(input, from, to - from));
      }
      from = to;
    }
    List<Object> emitted = new ArrayList<>(64);
    long before = THREADS.getCurrentThreadAllocatedBytes();
    for (io.netty.buffer.ByteBuf piece : pieces) {
      try {
        channel.writeInbound(piece);
      } catch (RuntimeException e) {
        throw new AssertionError("decoder threw on " + show(input), e);
      }
      Decoding.drain(channel, emitted);
    }
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
    long bound =
        ALLOCATION_SLACK
            + 3L * input.length
            + ALLOCATION_PER_COMMAND * (emitted.size() + pieces.size());
    if (measure && allocated > bound) {
      fail(
          "allocated %s > %s decoding %s bytes in %s pieces: %s",
          allocated, bound, input.length, pieces.size(), show(input));
    }
    boolean idle = decoder.isIdle() && decoder.bufferedBytes() == 0;
    channel.finishAndReleaseAll();
    return new Outcome(emitted, idle);
  }

  private static void assertWellFormed(List<Object> emitted, byte[] input) {
    for (int i = 0; i < emitted.size(); i++) {
      Object o = emitted.get(i);
      if (o instanceof RespDecoder.ProtocolError e) {
        if (i != emitted.size() - 1) {
          fail("output after a protocol error for %s", show(input));
        }
        if (!ERRORS.contains(e.message()) && !EXPECTED_DOLLAR.matcher(e.message()).matches()) {
          fail("unknown error text %s", e.message());
        }
      } else if (!(o instanceof Command)) {
        fail("unexpected output %s", o);
      }
    }
  }

  private static void assertCommands(Outcome outcome, List<byte[][]> expected, byte[] input) {
    List<Object> emitted = outcome.emitted;
    boolean same = emitted.size() == expected.size();
    for (int i = 0; same && i < emitted.size(); i++) {
      same = emitted.get(i) instanceof Command c && Arrays.deepEquals(c.args(), expected.get(i));
    }
    if (!same) {
      fail("input %s decoded as %s", show(input), outcome.shown());
    }
  }

  /**
   * Commands of random bytes, each encoded as RESP or as an inline line; blank requests between.
   */
  static byte[] validPipeline(SplittableRandom random, List<byte[][]> commands) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int n = 1 + random.nextInt(6);
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(12)) {
        case 0 -> out.writeBytes(ascii("\r\n"));
        case 1 -> out.writeBytes(ascii(random.nextBoolean() ? "*0\r\n" : "*-1\r\n"));
        default -> {}
      }
      boolean inline = random.nextInt(4) == 0;
      byte[][] args = new byte[1 + random.nextInt(5)][];
      for (int j = 0; j < args.length; j++) {
        int length = random.nextInt(10) == 0 && !inline ? random.nextInt(6000) : random.nextInt(12);
        args[j] = new byte[length];
        if (random.nextBoolean()) {
          random.nextBytes(args[j]);
        } else {
          for (int k = 0; k < length; k++) {
            args[j][k] = (byte) (0x20 + random.nextInt(95)); // printable, for inline words
          }
        }
      }
      commands.add(args);
      out.writeBytes(inline ? inline(args, random) : Decoding.resp(args));
    }
    return out.toByteArray();
  }

  /** An inline line that splits into exactly {@code args}, quoting as needed. */
  private static byte[] inline(byte[][] args, SplittableRandom random) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(ascii(" ".repeat(random.nextInt(2))));
    for (int i = 0; i < args.length; i++) {
      if (i > 0) {
        out.writeBytes(ascii(random.nextBoolean() ? " " : " \t "));
      }
      byte[] a = args[i];
      boolean plain = a.length > 0;
      for (byte b : a) {
        plain &= b > ' ' && b < 0x7f && b != '"' && b != '\'' && b != '*';
      }
      if (plain) {
        out.writeBytes(a);
        continue;
      }
      out.write('"');
      for (byte b : a) {
        if (b >= ' ' && b < 0x7f && b != '"' && b != '\\') {
          out.write(b);
        } else {
          out.writeBytes(ascii(String.format("\\x%02x", b & 0xff)));
        }
      }
      out.write('"');
    }
    out.writeBytes(ascii(random.nextBoolean() ? "\r\n" : "\n"));
    return out.toByteArray();
  }

  /** One to three mutations of the kinds that break framing or tempt a large allocation. */
  static byte[] mutate(byte[] valid, SplittableRandom random) {
    byte[] b = valid;
    int mutations = 1 + random.nextInt(3);
    for (int m = 0; m < mutations && b.length > 0; m++) {
      int at = random.nextInt(b.length);
      b =
          switch (random.nextInt(8)) {
            case 0 -> flip(b, at, (byte) (1 << random.nextInt(8)));
            case 1 -> Arrays.copyOf(b, at);
            case 2 -> splice(b, at, at, randomBytes(1 + random.nextInt(8), random));
            case 3 ->
                splice(b, at, Math.min(b.length, at + random.nextInt(4)), ascii(bigNumber(random)));
            case 4 -> splice(b, at, Math.min(b.length, at + 1 + random.nextInt(16)), new byte[0]);
            case 5 ->
                splice(
                    b,
                    at,
                    at,
                    Arrays.copyOfRange(b, at, Math.min(b.length, at + 1 + random.nextInt(32))));
            case 6 -> splice(b, at, at, new byte[] {ALPHABET[random.nextInt(ALPHABET.length)]});
            default -> flip(b, at, (byte) random.nextInt(256));
          };
    }
    return b;
  }

  private static String bigNumber(SplittableRandom random) {
    String[] numbers = {
      "2147483647",
      "2147483648",
      "536870912",
      "536870913",
      "1048576",
      "1048577",
      "-1",
      "0",
      "00",
      "9223372036854775807",
      "9223372036854775808",
      "-9223372036854775808",
      "99999999999999999999"
    };
    return numbers[random.nextInt(numbers.length)];
  }

  private static RespLimits tinyLimits(SplittableRandom random) {
    return new RespLimits(
        1 + random.nextInt(64),
        1 + random.nextInt(6),
        1 + random.nextInt(48),
        1 + random.nextInt(256));
  }

  private static byte[] flip(byte[] b, int at, byte mask) {
    byte[] c = b.clone();
    c[at] ^= mask;
    return c;
  }

  private static byte[] splice(byte[] b, int from, int to, byte[] insert) {
    byte[] c = new byte[b.length - (to - from) + insert.length];
    System.arraycopy(b, 0, c, 0, from);
    System.arraycopy(insert, 0, c, from, insert.length);
    System.arraycopy(b, to, c, from + insert.length, b.length - to);
    return c;
  }

  private static byte[] randomBytes(int n, SplittableRandom random) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String show(byte[] input) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < Math.min(input.length, 300); i++) {
      int x = input[i] & 0xff;
      if (x >= 0x20 && x < 0x7f && x != '\\' && x != '"') {
        b.append((char) x);
      } else {
        b.append(String.format("\\x%02x", x));
      }
    }
    return b.append(input.length > 300 ? "\"..." : "\"").toString();
  }
}
