package io.idem.server.resp;

import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ByteProcessor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns a client's bytes into {@link Command}s, as Redis reads them (src/networking.c): RESP arrays
 * of bulk strings ({@code *2\r\n$3\r\nGET\r\n$1\r\nk\r\n}) and inline commands ({@code GET k\r\n}).
 * Emits each command in arrival order, one per {@code decode} call, so a command (AUTH) runs before
 * the next one is read. On bad input emits one {@link ProtocolError} and then discards everything;
 * the connection handler replies {@code -ERR <message>} and closes.
 */
public final class RespDecoder extends ByteToMessageDecoder {
  /*
   * Design: a resumable state machine that consumes every byte it is given, except an unfinished
   * inline line. Header lines ($n, *n) are parsed a byte at a time by HeaderLine, so a header split
   * across reads is never rescanned; bulk bytes are copied out as they arrive. So after a read the
   * cumulation is usually empty, Netty releases it, and the next read's buffer becomes the new
   * cumulation without a copy: pipelines of small commands cost no cumulation copies.
   *
   * Memory follows the bytes that arrived, never a declared length: a bulk arriving in pieces is
   * kept in chunks the size of each piece (at least MIN_CHUNK) and joined once complete, so a
   * 500 MB bulk in 64 KB reads costs two copies of each byte, and "$2000000000\r\n" followed by
   * ten bytes costs a few KB. The argument array grows by doubling up to the declared count.
   *
   * Limits (RespLimits, read at each decode so CONFIG SET applies at once) are checked when a
   * header line ends, before anything is allocated for it. The query-buffer limit bounds the bytes
   * held for one unfinished request: the arguments read so far plus the declared length of the
   * one being read (for inline, the unfinished line). Every check depends on the bytes only, not
   * on how they were split into reads, so a request is accepted or refused the same way however
   * it arrives (where two bounds apply to one growing line, the lower one is reported).
   *
   * Where Redis is lenient this decoder is strict: Redis skips the two bytes after a bulk and the
   * byte after a header's \r without looking; here they must be \r\n and \n, or the connection is
   * refused with EXPECTED_CRLF, since a client whose lengths are wrong is out of step and every
   * command after it would be misread.
   */

  /**
   * The request could not be read. The connection handler replies {@code -ERR } + message and
   * closes the connection; the decoder has discarded all input after it.
   *
   * @param message Redis's text, without the {@code ERR } prefix: {@code Protocol error: ...}
   */
  public record ProtocolError(String message) {
    /** The reply to send before closing: {@code -ERR Protocol error: ...}. */
    public Reply.Error toReply() {
      return Reply.err(message);
    }
  }

  static final String INVALID_MULTIBULK_LENGTH = "Protocol error: invalid multibulk length";
  static final String INVALID_BULK_LENGTH = "Protocol error: invalid bulk length";
  static final String TOO_BIG_INLINE = "Protocol error: too big inline request";
  static final String TOO_BIG_MBULK_COUNT = "Protocol error: too big mbulk count string";
  static final String TOO_BIG_BULK_COUNT = "Protocol error: too big bulk count string";
  static final String UNBALANCED_QUOTES = "Protocol error: unbalanced quotes in request";
  static final String UNAUTHENTICATED_MULTIBULK =
      "Protocol error: unauthenticated multibulk length";
  static final String UNAUTHENTICATED_BULK = "Protocol error: unauthenticated bulk length";
  // Not Redis's (Redis does not check the terminators; see the design note).
  static final String EXPECTED_CRLF = "Protocol error: expected '\\r\\n'";
  // Redis closes such a client without a reply; Idem says why.
  static final String QUERY_BUFFER_LIMIT = "Protocol error: client-query-buffer-limit reached";
  // Redis closes an evicted client without a reply; Idem says why.
  static final String MAXMEMORY_CLIENTS =
      "Protocol error: the clients' buffers passed maxmemory-clients, this one the most";

  /** {@code Protocol error: expected '$', got 'x'}, as Redis words it. */
  static String expectedDollar(byte got) {
    // Redis prints the byte raw (CR and LF as spaces); only printable ASCII is kept here, so the
    // reply stays one valid line.
    char c = got >= 0x20 && got < 0x7f ? (char) got : ' ';
    return "Protocol error: expected '$', got '" + c + "'";
  }

  /** Redis's bounds for a client that has not yet authenticated (networking.c). */
  static final int UNAUTHENTICATED_MAX_ARRAY = 10;

  static final int UNAUTHENTICATED_MAX_BULK = 16384;
  static final long UNAUTHENTICATED_MAX_QUERY_BUFFER = 1 << 20;

  /** The smallest chunk for a bulk arriving in pieces: bounds the chunk count for tiny reads. */
  static final int MIN_CHUNK = 4096;

  /** The longest Java array, and so the longest bulk whatever proto-max-bulk-len says. */
  static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

  private static final byte[] EMPTY = new byte[0];
  private static final byte[][] NO_ARGS = new byte[0][];

  /**
   * Argument slots made before the arguments come: enough for a query of thirty features and more
   * without regrowing, while a header that announces a million arguments and sends none costs a
   * small array; past it the slots double as arguments arrive.
   */
  private static final int INITIAL_ARGS = 64;

  /** Returned by a state's method when it needs more bytes than there are. */
  private static final Object NEED_MORE = new Object();

  private enum State {
    /** Between requests: the next byte says RESP ('*') or inline. */
    IDLE,
    ARRAY_HEADER,
    BULK_HEADER,
    BULK_DATA,
    BULK_CR,
    BULK_LF,
    INLINE,
    /** After a protocol error: all input is discarded. */
    FAILED
  }

  private final Supplier<RespLimits> limits;
  private final BooleanSupplier authRequired;
  private final QueryMemory memory;

  /** The bytes last reported to {@link #memory}. */
  private long reported;

  private State state = State.IDLE;
  private final HeaderLine header = new HeaderLine();

  // The array being read: its declared length, the arguments read so far and their bytes.
  private int argCount;
  private byte[][] args = NO_ARGS;
  private int argsRead;
  private long argBytes;

  // The bulk being read. While it arrives in pieces, chunk is the piece being filled and chunks
  // the full ones before it; once complete, chunk is the whole bulk.
  private int bulkLength;
  private int bulkRead;
  private byte @Nullable [] chunk;
  private int chunkFill;
  private @Nullable List<byte[]> chunks;
  private long chunksBytes;

  // How many bytes of an unfinished inline line were searched for '\n' already.
  private int inlineScanned;

  /** A decoder for an authenticated connection (or a server without a password). */
  public RespDecoder(Supplier<RespLimits> limits) {
    this(limits, () -> false, QueryMemory.NONE);
  }

  /**
   * @param limits read at each decode, so changes apply to the next request
   * @param authRequired whether the connection still has to authenticate; while it does, Redis's
   *     tighter bounds apply (10 elements, 16 KiB bulks, 1 MiB buffered)
   * @param memory told how many bytes an unfinished request holds after each read that leaves one
   */
  public RespDecoder(
      Supplier<RespLimits> limits, BooleanSupplier authRequired, QueryMemory memory) {
    this.limits = limits;
    this.authRequired = authRequired;
    this.memory = memory;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (state == State.FAILED) {
      in.skipBytes(in.readableBytes());
      return;
    }
    RespLimits limits = this.limits.get();
    boolean unauthenticated = authRequired.getAsBoolean();
    while (in.isReadable()) {
      Object result =
          switch (state) {
            case IDLE -> startRequest(in);
            case ARRAY_HEADER -> readArrayHeader(in, limits, unauthenticated);
            case BULK_HEADER -> readBulkHeader(in, limits, unauthenticated);
            case BULK_DATA -> readBulkData(in);
            case BULK_CR, BULK_LF -> readBulkEnd(in);
            case INLINE -> readInline(in, limits, unauthenticated);
            case FAILED -> throw new AssertionError("decode after failure");
          };
      if (result == NEED_MORE) {
        break;
      }
      if (result instanceof ProtocolError) {
        fail();
        in.skipBytes(in.readableBytes());
        out.add(result);
        return;
      }
      if (result != null) {
        report(0);
        out.add(result);
        return;
      }
    }
    // Only a request left unfinished by a read is counted: one that arrives whole is parsed and
    // run at once, and costs no shared counting.
    if (state != State.IDLE && !report(heldBytes())) {
      fail();
      in.skipBytes(in.readableBytes());
      out.add(new ProtocolError(MAXMEMORY_CLIENTS));
    }
  }

  /**
   * The bytes held for the unfinished request: its arguments, the bulk's pieces, a partial line.
   */
  private long heldBytes() {
    byte[] c = chunk;
    return 8L * args.length
        + argBytes
        + chunksBytes
        + (c == null ? 0 : c.length)
        + actualReadableBytes();
  }

  private boolean report(long bytes) {
    if (bytes == reported) {
      return true;
    }
    reported = bytes;
    return memory.holding(bytes);
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    report(0); // the connection is gone, and what it held with it
  }

  /** Whether the decoder is between requests, holding no partial one. For tests. */
  boolean isIdle() {
    return state == State.IDLE;
  }

  /** The bytes left in the cumulation: an unfinished inline line, else none. For tests. */
  int bufferedBytes() {
    return actualReadableBytes();
  }

  private @Nullable Object startRequest(ByteBuf in) {
    argBytes = 0;
    if (in.getByte(in.readerIndex()) == '*') {
      state = State.ARRAY_HEADER;
    } else {
      state = State.INLINE;
    }
    header.reset();
    inlineScanned = 0;
    return null;
  }

  private @Nullable Object readArrayHeader(ByteBuf in, RespLimits limits, boolean unauthenticated) {
    boolean complete = scanHeader(in);
    if (header.length > limits.maxInlineLength()) {
      return new ProtocolError(TOO_BIG_MBULK_COUNT);
    }
    if (!complete) {
      return NEED_MORE;
    }
    long n = header.value;
    if (!header.valid || n > Integer.MAX_VALUE || n > limits.maxArrayLength()) {
      return new ProtocolError(INVALID_MULTIBULK_LENGTH);
    }
    if (n > UNAUTHENTICATED_MAX_ARRAY && unauthenticated) {
      return new ProtocolError(UNAUTHENTICATED_MULTIBULK);
    }
    if (header.terminator != '\n') {
      return new ProtocolError(EXPECTED_CRLF);
    }
    if (n <= 0) {
      state = State.IDLE; // Redis skips *0 and *-1
      return null;
    }
    argCount = (int) n;
    args = new byte[Math.min(argCount, INITIAL_ARGS)][];
    argsRead = 0;
    argBytes = 0;
    header.reset();
    state = State.BULK_HEADER;
    return null;
  }

  private @Nullable Object readBulkHeader(ByteBuf in, RespLimits limits, boolean unauthenticated) {
    boolean complete = scanHeader(in);
    if (header.length > limits.maxInlineLength()) {
      return new ProtocolError(TOO_BIG_BULK_COUNT);
    }
    if (!complete) {
      return NEED_MORE;
    }
    if (header.prefix != '$') {
      return new ProtocolError(expectedDollar(header.prefix));
    }
    long n = header.value;
    if (!header.valid || n < 0 || n > limits.maxBulkLength() || n > MAX_ARRAY_LENGTH) {
      return new ProtocolError(INVALID_BULK_LENGTH);
    }
    if (n > UNAUTHENTICATED_MAX_BULK && unauthenticated) {
      return new ProtocolError(UNAUTHENTICATED_BULK);
    }
    if (header.terminator != '\n') {
      return new ProtocolError(EXPECTED_CRLF);
    }
    if (argBytes + n > queryBufferLimit(limits, unauthenticated)) {
      return new ProtocolError(QUERY_BUFFER_LIMIT);
    }
    header.reset();
    bulkLength = (int) n;
    bulkRead = 0;
    if (bulkLength == 0) {
      chunk = EMPTY;
      state = State.BULK_CR;
    } else {
      state = State.BULK_DATA;
    }
    return null;
  }

  /** Feeds the header line parser; true once the line and its terminator are consumed. */
  private boolean scanHeader(ByteBuf in) {
    int last = in.forEachByte(in.readerIndex(), in.readableBytes(), header);
    if (last < 0) {
      in.skipBytes(in.readableBytes());
      return false;
    }
    in.readerIndex(last + 1);
    return true;
  }

  /**
   * Reads {@code length} bytes into {@code dst}. From a direct buffer of one region, through its
   * internal NIO view: without Netty's Unsafe (off by default on Java 25) {@code readBytes} copies
   * through a new duplicate of the buffer each call, one object per argument read.
   */
  private static void readInto(ByteBuf in, byte[] dst, int offset, int length) {
    if (in.isDirect() && in.nioBufferCount() == 1) {
      in.internalNioBuffer(in.readerIndex(), length).get(dst, offset, length);
      in.skipBytes(length);
    } else {
      in.readBytes(dst, offset, length);
    }
  }

  private @Nullable Object readBulkData(ByteBuf in) {
    int readable = in.readableBytes();
    int missing = bulkLength - bulkRead;
    if (chunk == null && readable >= missing) {
      // The whole bulk is here, the usual case: one copy straight into the argument.
      byte[] whole = new byte[bulkLength];
      readInto(in, whole, 0, bulkLength);
      chunk = whole;
      bulkRead = bulkLength;
      state = State.BULK_CR;
      return null;
    }
    while (in.isReadable() && bulkRead < bulkLength) {
      byte[] c = chunk;
      if (c == null || chunkFill == c.length) {
        if (c != null) {
          if (chunks == null) {
            chunks = new ArrayList<>();
          }
          chunks.add(c);
          chunksBytes += c.length;
        }
        // Sized by what arrived, not by what was declared.
        c = new byte[Math.min(bulkLength - bulkRead, Math.max(in.readableBytes(), MIN_CHUNK))];
        chunk = c;
        chunkFill = 0;
      }
      int n = Math.min(in.readableBytes(), c.length - chunkFill);
      readInto(in, c, chunkFill, n);
      chunkFill += n;
      bulkRead += n;
    }
    if (bulkRead < bulkLength) {
      return NEED_MORE;
    }
    List<byte[]> full = chunks;
    if (full != null) {
      byte[] whole = new byte[bulkLength];
      int at = 0;
      for (byte[] c : full) {
        System.arraycopy(c, 0, whole, at, c.length);
        at += c.length;
      }
      System.arraycopy(chunk, 0, whole, at, chunkFill);
      chunk = whole;
      chunks = null;
      chunksBytes = 0;
    }
    state = State.BULK_CR;
    return null;
  }

  private @Nullable Object readBulkEnd(ByteBuf in) {
    if (state == State.BULK_CR) {
      if (in.readByte() != '\r') {
        return new ProtocolError(EXPECTED_CRLF);
      }
      state = State.BULK_LF;
      if (!in.isReadable()) {
        return NEED_MORE;
      }
    }
    if (in.readByte() != '\n') {
      return new ProtocolError(EXPECTED_CRLF);
    }
    byte[] arg = chunk;
    chunk = null;
    if (argsRead == args.length) {
      args = Arrays.copyOf(args, (int) Math.min(argCount, 2L * args.length));
    }
    args[argsRead++] = arg;
    argBytes += bulkLength;
    if (argsRead < argCount) {
      state = State.BULK_HEADER;
      return null;
    }
    Command command = new Command(args); // args.length == argCount: growth stops there
    args = NO_ARGS;
    state = State.IDLE;
    return command;
  }

  private @Nullable Object readInline(ByteBuf in, RespLimits limits, boolean unauthenticated) {
    int start = in.readerIndex();
    int lf = in.indexOf(start + inlineScanned, in.writerIndex(), (byte) '\n');
    int end = lf >= 0 ? lf : in.writerIndex();
    if (end > start && in.getByte(end - 1) == '\r') {
      end--; // the terminator's CR is not part of the line, even before its LF has arrived
    }
    long length = end - start;
    long maxLine = limits.maxInlineLength();
    long maxBuffered = queryBufferLimit(limits, unauthenticated);
    if (length > Math.min(maxLine, maxBuffered)) {
      // The lower bound is the one a growing line crosses first, however its bytes arrive.
      return new ProtocolError(maxLine <= maxBuffered ? TOO_BIG_INLINE : QUERY_BUFFER_LIMIT);
    }
    if (lf < 0) {
      inlineScanned = in.readableBytes(); // the unfinished line stays in the cumulation
      return NEED_MORE;
    }
    byte[] line = new byte[end - start];
    in.getBytes(start, line);
    in.readerIndex(lf + 1);
    inlineScanned = 0;
    state = State.IDLE;
    byte[][] words = InlineSplitter.split(line);
    if (words == null) {
      return new ProtocolError(UNBALANCED_QUOTES);
    }
    return words.length == 0 ? null : new Command(words); // blank lines are skipped
  }

  private static long queryBufferLimit(RespLimits limits, boolean unauthenticated) {
    return unauthenticated
        ? Math.min(limits.maxQueryBuffer(), UNAUTHENTICATED_MAX_QUERY_BUFFER)
        : limits.maxQueryBuffer();
  }

  private void fail() {
    state = State.FAILED;
    args = NO_ARGS;
    argBytes = 0;
    chunk = null;
    chunks = null;
    chunksBytes = 0;
    report(0);
  }

  /**
   * Parses a header line {@code <prefix><integer>\r\n} a byte at a time, judging the integer as
   * Redis's string2ll does: optional '-', no leading zeros, no '+', at most 20 characters, within a
   * signed 64-bit range. Keeps no bytes, so a line split across reads is never rescanned.
   */
  static final class HeaderLine implements ByteProcessor {
    /** Bytes before the '\r', prefix included. */
    long length;

    /** The first byte; '\r' if the line is empty. */
    byte prefix;

    /** The byte after the '\r', which should be '\n'. */
    byte terminator;

    /** Whether the integer is valid so far (and, once the line ended, whether it is valid). */
    boolean valid;

    /** The integer, once the line ended and if it is valid. */
    long value;

    private boolean sawCr;
    private boolean negative;
    private boolean zero;
    private long accumulator; // minus the magnitude, so Long.MIN_VALUE fits

    void reset() {
      length = 0;
      prefix = '\r';
      terminator = 0;
      valid = false;
      value = 0;
      sawCr = false;
      negative = false;
      zero = false;
      accumulator = 0;
    }

    @Override
    public boolean process(byte b) {
      if (sawCr) {
        terminator = b;
        finish();
        return false;
      }
      if (b == '\r') {
        sawCr = true;
        return true;
      }
      long digitIndex = length++; // 0 is the prefix
      if (digitIndex == 0) {
        prefix = b;
        valid = true;
        return true;
      }
      if (!valid) {
        return true;
      }
      if (digitIndex > 20) { // string2ll refuses 21 characters or more
        valid = false;
        return true;
      }
      int d = b - '0';
      if (digitIndex == 1 && b == '-') {
        negative = true;
      } else if (d < 0 || d > 9 || zero) {
        valid = false; // not a digit, or a digit after a leading 0
      } else if (d == 0 && (digitIndex == 1 || (negative && digitIndex == 2))) {
        zero = true; // "0" alone is valid, "-0" and "01" are not
        valid = digitIndex == 1;
      } else if (accumulator < Long.MIN_VALUE / 10 || accumulator * 10 < Long.MIN_VALUE + d) {
        valid = false; // beyond 64 bits
      } else {
        accumulator = accumulator * 10 - d;
      }
      return true;
    }

    private void finish() {
      long digits = length - 1;
      if (digits <= 0 || (negative && digits == 1)) {
        valid = false; // no digits, or '-' alone
      }
      if (valid) {
        if (negative) {
          value = accumulator;
        } else if (accumulator == Long.MIN_VALUE) {
          valid = false; // 2^63 does not fit
        } else {
          value = -accumulator;
        }
      }
    }
  }
}
