package io.idem.bench.claims;

import java.util.Arrays;
import java.util.BitSet;
import java.util.SplittableRandom;

/**
 * The messages of one run, in delivery order, made deterministically from a seed: Tapjoy's pipeline
 * (seed 003) as a stream of Kafka messages. Primitive arrays, one slot per message.
 *
 * <ul>
 *   <li>id: a 16-byte random (version 4) UUID, {@link #idHi} then {@link #idLo};
 *   <li>owner: where Kafka stored the delivery, 8 bytes: the partition (2 bytes, 0 to {@link
 *       #PARTITIONS} - 1) then the offset (6 bytes), which grows by one per message of its
 *       partition;
 *   <li>event time: unique messages are spread evenly over {@code spanMillis} in delivery order.
 * </ul>
 *
 * <p>A fraction of the messages are duplicate deliveries: the id and event time of an earlier
 * message, each original duplicated at most once, delivered at a uniformly random later place in
 * the stream under a new owner (the offset it got when it was written again). The later delivery is
 * the duplicate: whoever claims in delivery order must find exactly {@link #duplicates} of them.
 */
public final class Workload {
  public static final int PARTITIONS = 6;
  private static final long OFFSET_MASK = (1L << 48) - 1;

  public final int size;
  public final int duplicates;
  public final long startMillis;
  public final int spanMillis;
  public final long[] idHi;
  public final long[] idLo;
  public final long[] owner;

  /** Event time of each message in milliseconds after {@link #startMillis}. */
  public final int[] timeOffset;

  /** The delivery position of each duplicate, ascending. */
  public final int[] duplicatePositions;

  /** The owner of each duplicate's original, by index into {@link #duplicatePositions}. */
  public final long[] originalOwner;

  private Workload(
      int size, int duplicates, long startMillis, int spanMillis, int[] duplicatePositions) {
    this.size = size;
    this.duplicates = duplicates;
    this.startMillis = startMillis;
    this.spanMillis = spanMillis;
    this.idHi = new long[size];
    this.idLo = new long[size];
    this.owner = new long[size];
    this.timeOffset = new int[size];
    this.duplicatePositions = duplicatePositions;
    this.originalOwner = new long[duplicates];
  }

  /** The event time of message {@code i} in Unix milliseconds. */
  public long timeMillis(int i) {
    return startMillis + timeOffset[i];
  }

  /** The number of duplicates {@code dupRate} of {@code size} messages makes. */
  public static int duplicateCount(int size, double dupRate) {
    // At most one duplicate per original: never more than half the messages.
    return (int) Math.min(Math.round(size * dupRate), size / 2);
  }

  /**
   * Makes {@code size} messages of which {@code round(size * dupRate)} are duplicates. Everything
   * but {@code startMillis} follows from {@code seed}; {@code startMillis} only shifts the times.
   */
  public static Workload generate(
      long seed, int size, double dupRate, long startMillis, int spanMillis) {
    if (size < 1) {
      throw new IllegalArgumentException("size (" + size + ") must be >= 1");
    }
    if (!(dupRate >= 0 && dupRate <= 0.5)) {
      throw new IllegalArgumentException("duplicate rate (" + dupRate + ") must be in [0, 0.5]");
    }
    if (spanMillis < 1) {
      throw new IllegalArgumentException("span (" + spanMillis + " ms) must be >= 1");
    }
    int dups = duplicateCount(size, dupRate);
    int uniques = size - dups;
    SplittableRandom random = new SplittableRandom(seed);

    // Which originals get a duplicate (distinct), and after which unique message it is delivered.
    BitSet chosen = new BitSet(uniques);
    long[] placement = new long[dups]; // (unique index it follows << 32) | original index
    for (int d = 0; d < dups; d++) {
      int original;
      do {
        original = random.nextInt(uniques);
      } while (chosen.get(original));
      chosen.set(original);
      int after = original + random.nextInt(uniques - original);
      placement[d] = ((long) after << 32) | original;
    }
    Arrays.sort(placement);

    // Unique messages, with the duplicates merged in after the message they follow.
    long[] nextOffset = new long[PARTITIONS];
    for (int p = 0; p < PARTITIONS; p++) {
      nextOffset[p] = random.nextLong(1L << 40); // offsets as large as a long-lived topic's
    }
    int[] positionOfUnique = new int[uniques];
    int[] dupPositions = new int[dups];
    int[] dupOriginals = new int[dups];
    Workload w = new Workload(size, dups, startMillis, spanMillis, dupPositions);
    int next = 0;
    int d = 0;
    for (int u = 0; u < uniques; u++) {
      int at = next++;
      positionOfUnique[u] = at;
      // Version 4 UUID: 4 in the version nibble, 10 in the two variant bits.
      w.idHi[at] = (random.nextLong() & ~0xF000L) | 0x4000L;
      w.idLo[at] = (random.nextLong() & ~(3L << 62)) | (2L << 62);
      w.timeOffset[at] = (int) ((long) u * spanMillis / uniques);
      w.owner[at] = nextOwner(random, nextOffset);
      while (d < dups && (int) (placement[d] >>> 32) == u) {
        int original = positionOfUnique[(int) placement[d]];
        int dup = next++;
        w.idHi[dup] = w.idHi[original];
        w.idLo[dup] = w.idLo[original];
        w.timeOffset[dup] = w.timeOffset[original];
        w.owner[dup] = nextOwner(random, nextOffset);
        dupPositions[d] = dup;
        dupOriginals[d] = original;
        d++;
      }
    }
    for (int k = 0; k < dups; k++) {
      w.originalOwner[k] = w.owner[dupOriginals[k]];
    }
    return w;
  }

  private static long nextOwner(SplittableRandom random, long[] nextOffset) {
    int partition = random.nextInt(PARTITIONS);
    long offset = nextOffset[partition]++ & OFFSET_MASK;
    return ((long) partition << 48) | offset;
  }

  /** A well-mixed 64-bit hash of message {@code i}'s id (Murmur3's finalizer). */
  public long idHash(int i) {
    return mix(idHi[i] ^ Long.rotateLeft(idLo[i], 29));
  }

  public static long mix(long h) {
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
