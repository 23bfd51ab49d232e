package io.idem.server.cluster;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A write as a Kafka record's value: what a node produces to a partition and every node that serves
 * the partition applies. Versioned, so that a producer that is not Idem (a Spark or Kafka Connect
 * job loading a day of events) can write commands too; such a producer says so with {@link
 * #OUTSIDE} as its origin.
 *
 * <pre>
 * offset  size  field (big-endian)
 * 0       4     magic "IDMR"
 * 4       1     version, 1
 * 5       1     flags: 0, or 1 for a transaction (others are refused)
 * 6       2     origin: the index of the node that took the write in cluster-nodes, or 0xFFFF
 * 8       8     request: the origin's number for the write, which its reply waits for; 0 outside
 * flags 0, one command:
 * 16      4     argc: the command's arguments, its name included, 1 to {@link #MAX_ARGS}
 * 20      ...   argc times: a u32 length, then that many bytes
 * flags 1, a transaction (MULTI ... EXEC), applied as one and answered as EXEC:
 * 16      4     count: its commands, 1 or more
 * 20      ...   count times: a command as above (argc, then its arguments)
 * </pre>
 *
 * A record carries at most {@link #MAX_ARGS} arguments in all. Reading checks every length against
 * what is left before it allocates, so a bad record costs at most its own size; anything that is
 * not exactly this layout is a {@link BadRecordException}.
 */
public record CommandRecord(
    int origin, long request, List<List<byte[]>> commands, boolean transaction) {

  static final int MAGIC = 0x49444D52; // "IDMR"
  static final byte VERSION = 1;
  static final byte TRANSACTION = 1;
  static final int HEADER_BYTES = 20;

  /** The origin of a record written by a producer that is not an Idem node. */
  public static final int OUTSIDE = 0xFFFF;

  /** The most arguments a record carries: Redis's max-multibulk-len default. */
  public static final int MAX_ARGS = 1 << 20;

  /** A record's value could not be read: why, in words. */
  public static final class BadRecordException extends Exception {
    BadRecordException(String why) {
      super(why, null, false, false);
    }
  }

  public CommandRecord {
    if (origin < 0 || origin > OUTSIDE) {
      throw new IllegalArgumentException("origin (" + origin + ") must be in [0, 65535]");
    }
    if (commands.isEmpty() || !transaction && commands.size() != 1) {
      throw new IllegalArgumentException("a record holds one command, or a transaction of some");
    }
    long total = 0;
    for (List<byte[]> c : commands) {
      if (c.isEmpty()) {
        throw new IllegalArgumentException("a command has its name at least");
      }
      total += c.size();
    }
    if (total > MAX_ARGS) {
      throw new IllegalArgumentException("a record has at most " + MAX_ARGS + " arguments");
    }
    commands = commands.stream().map(List::copyOf).toList();
  }

  /** One command. */
  public CommandRecord(int origin, long request, List<byte[]> args) {
    this(origin, request, List.of(args), false);
  }

  /** A record from a producer that is not Idem: no node waits for its reply. */
  public static CommandRecord outside(List<byte[]> args) {
    return new CommandRecord(OUTSIDE, 0, args);
  }

  /** A transaction: its commands are applied as one, in order, and answered as EXEC. */
  public static CommandRecord transaction(int origin, long request, List<List<byte[]>> commands) {
    return new CommandRecord(origin, request, commands, true);
  }

  /** The command of a record that is not a transaction: its arguments, its name first. */
  public List<byte[]> args() {
    if (transaction) {
      throw new IllegalStateException("a transaction has several commands: see commands()");
    }
    return commands.get(0);
  }

  /** The record's value bytes. */
  public byte[] encode() {
    long size = HEADER_BYTES + (transaction ? 4L * commands.size() : 0);
    for (List<byte[]> c : commands) {
      for (byte[] a : c) {
        size += 4L + a.length;
      }
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a record of " + size + " bytes is too large");
    }
    ByteBuffer b = ByteBuffer.allocate((int) size);
    b.putInt(MAGIC).put(VERSION).put(transaction ? TRANSACTION : 0);
    b.putShort((short) origin).putLong(request);
    if (transaction) {
      b.putInt(commands.size());
    }
    for (List<byte[]> c : commands) {
      b.putInt(c.size());
      for (byte[] a : c) {
        b.putInt(a.length).put(a);
      }
    }
    return b.array();
  }

  /**
   * Reads a record's value.
   *
   * @throws BadRecordException if it is not exactly one record of a version this reads
   */
  public static CommandRecord decode(byte[] value) throws BadRecordException {
    if (value.length < HEADER_BYTES) {
      throw new BadRecordException("a record of " + value.length + " bytes has no header");
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    if (b.getInt() != MAGIC) {
      throw new BadRecordException("not an Idem command record (no IDMR magic)");
    }
    byte version = b.get();
    if (version != VERSION) {
      throw new BadRecordException("record version " + version + " is not one this node reads");
    }
    byte flags = b.get();
    if (flags != 0 && flags != TRANSACTION) {
      throw new BadRecordException("record flags " + flags + " are not known");
    }
    int origin = Short.toUnsignedInt(b.getShort());
    long request = b.getLong();
    int count = 1;
    if (flags == TRANSACTION) {
      if (b.remaining() < 4) {
        throw new BadRecordException("a transaction without its count of commands");
      }
      count = b.getInt();
      // Each command takes at least 8 bytes (its argc and one length): checked before sizing.
      if (count < 1 || count > MAX_ARGS || count > b.remaining() / 8) {
        throw new BadRecordException(
            "a transaction of " + Integer.toUnsignedString(count) + " commands does not fit");
      }
    }
    List<List<byte[]>> commands = new ArrayList<>(count);
    long total = 0;
    for (int c = 0; c < count; c++) {
      List<byte[]> args = readCommand(b, c);
      total += args.size();
      if (total > MAX_ARGS) {
        throw new BadRecordException("more than " + MAX_ARGS + " arguments in one record");
      }
      commands.add(args);
    }
    if (b.hasRemaining()) {
      throw new BadRecordException(b.remaining() + " bytes after the last argument");
    }
    return new CommandRecord(origin, request, commands, flags == TRANSACTION);
  }

  private static List<byte[]> readCommand(ByteBuffer b, int command) throws BadRecordException {
    if (b.remaining() < 4) {
      throw new BadRecordException("command " + command + " has no argc");
    }
    int argc = b.getInt();
    if (argc < 1 || argc > MAX_ARGS) {
      throw new BadRecordException("argc " + Integer.toUnsignedString(argc) + " is out of range");
    }
    // Each argument takes at least its 4-byte length: more than fit is a lie, caught before any
    // list is sized by it.
    if (argc > b.remaining() / 4) {
      throw new BadRecordException("argc " + argc + " does not fit in " + b.remaining() + " bytes");
    }
    List<byte[]> args = new ArrayList<>(argc);
    for (int i = 0; i < argc; i++) {
      if (b.remaining() < 4) {
        throw new BadRecordException("argument " + i + " has no length");
      }
      int len = b.getInt();
      if (len < 0 || len > b.remaining()) {
        throw new BadRecordException(
            "argument "
                + i
                + " of "
                + Integer.toUnsignedString(len)
                + " bytes passes the record's end");
      }
      byte[] a = new byte[len];
      b.get(a);
      args.add(a);
    }
    return args;
  }
}
