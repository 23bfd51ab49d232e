package io.idem.core.dedup;

import io.idem.core.filter.FilterFullException;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * The operations a dedup table records ({@link ClaimStore#record}) and replays: the server's log
 * and a Kafka Streams changelog carry them. The numbers are append-only: a number once given keeps
 * its meaning.
 *
 * <pre>
 * op  name     payload (big-endian)
 * 1   CLAIM    per new claim: u64 slice, then by mode: exact u16 n | n bytes id | u8 m | m
 *              bytes owner; filter u64 h1 | u64 h2; recent u64 h1 | u64 h2 | i32 owner hash
 * 2   RELEASE  exact: u64 slice | u64 h1 | u64 h2 | u16 n | id, with the release's record
 *              appended to the row;
 *              recent: u64 h1 | u64 h2
 * 3   ADVANCE  u64 the new lowest live slice (older ones dropped, their rows range-deleted)
 * 4   ROWS     nothing in memory: release records that undo a background write's races
 * </pre>
 */
public final class DedupOps {

  public static final byte CLAIM = 1;
  public static final byte RELEASE = 2;
  public static final byte ADVANCE = 3;
  public static final byte ROWS = 4;

  private DedupOps() {}

  static byte[] advance(long floor) {
    return ByteBuffer.allocate(8).putLong(floor).array();
  }

  static byte[] releaseExact(long slice, long h1, long h2, byte[] id) {
    return ByteBuffer.allocate(26 + id.length)
        .putLong(slice)
        .putLong(h1)
        .putLong(h2)
        .putShort((short) id.length)
        .put(id)
        .array();
  }

  static byte[] releaseRecent(long h1, long h2) {
    return ByteBuffer.allocate(16).putLong(h1).putLong(h2).array();
  }

  /**
   * Applies a recorded operation to the table in memory (its rows are the store's already).
   *
   * @throws IOException if the operation is unknown or its payload is not one the table recorded;
   *     the table may then be half changed and must be dropped
   */
  public static void replay(DedupTable t, byte op, byte[] payload) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(payload);
    try {
      switch (op) {
        case CLAIM -> {
          if (payload.length == 0) {
            throw new IOException("empty CLAIM payload");
          }
          while (b.hasRemaining()) {
            long slice = b.getLong();
            // A recorded claim landed in a live slice: anything else is a corrupt record, and
            // must not make the table allocate a filter per invented slice.
            long floor = t.slices.floor();
            if (slice < floor || slice >= floor + TimeSlices.maxLive(t.params)) {
              throw new IOException("claim in slice " + slice + ", live from " + floor);
            }
            t.replayClaim(slice, b);
          }
        }
        case RELEASE -> t.replayRelease(b);
        case ADVANCE -> t.slices.dropBelow(b.getLong());
        case ROWS -> {
          // rows only: already in the store
        }
        default -> throw new IOException("unknown dedup operation " + op);
      }
    } catch (BufferUnderflowException
        | IndexOutOfBoundsException
        | IllegalArgumentException
        | FilterFullException
        | TableFullException e) {
      throw new IOException("short dedup operation " + op + " of " + payload.length + " bytes", e);
    }
  }
}
