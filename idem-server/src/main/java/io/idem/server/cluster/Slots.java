package io.idem.server.cluster;

import static io.idem.core.Checks.checkArgument;

/**
 * Redis Cluster's key slots, so that every cluster-aware client routes by itself: a key's slot is
 * the CRC16 (XMODEM: polynomial 0x1021, no reflection, initial value 0) of the key, or of its hash
 * tag, modulo 16384. The hash tag is what lies between the first {@code {}} and the first {@code }}
 * after it, when that is not empty: {@code {user1000}.following} and {@code {user1000}.followers}
 * share a slot. Slots map onto a topic's partitions in contiguous ranges, so a node's slots read as
 * a few ranges in CLUSTER SLOTS.
 *
 * <p>The CRC is our own table: commons-codec's {@code Crc16} computes only the reflected variants,
 * and XMODEM is not one. SlotsTest checks it against Jedis's and Redis's documented slots.
 */
public final class Slots {

  /** Redis Cluster's slot count. */
  public static final int COUNT = 16384;

  private static final int[] TABLE = table();

  private Slots() {}

  private static int[] table() {
    int[] t = new int[256];
    for (int i = 0; i < 256; i++) {
      int crc = i << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      t[i] = crc & 0xffff;
    }
    return t;
  }

  /** CRC16/XMODEM of {@code b[from, to)}. */
  static int crc16(byte[] b, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc = ((crc << 8) ^ TABLE[((crc >>> 8) ^ b[i]) & 0xff]) & 0xffff;
    }
    return crc;
  }

  /** The key's slot, in [0, 16384). */
  public static int of(byte[] key) {
    int open = indexOf(key, (byte) '{', 0);
    if (open >= 0) {
      int close = indexOf(key, (byte) '}', open + 1);
      if (close > open + 1) {
        return crc16(key, open + 1, close) & (COUNT - 1);
      }
    }
    return crc16(key, 0, key.length) & (COUNT - 1);
  }

  private static int indexOf(byte[] b, byte x, int from) {
    for (int i = from; i < b.length; i++) {
      if (b[i] == x) {
        return i;
      }
    }
    return -1;
  }

  /** The partition, of {@code partitions}, that serves the slot: contiguous ranges, in order. */
  public static int partition(int slot, int partitions) {
    checkArgument(slot >= 0 && slot < COUNT, "slot (%s) must be in [0, 16384)", slot);
    checkArgument(
        partitions >= 1 && partitions <= COUNT,
        "partitions (%s) must be in [1, 16384]",
        partitions);
    return (int) ((long) slot * partitions / COUNT);
  }

  /** The first slot of the partition's range; its range ends where the next one's begins. */
  public static int firstSlot(int partition, int partitions) {
    checkArgument(
        partitions >= 1 && partitions <= COUNT,
        "partitions (%s) must be in [1, 16384]",
        partitions);
    checkArgument(
        partition >= 0 && partition <= partitions,
        "partition (%s) must be in [0, %s]",
        partition,
        partitions);
    // The least slot s with s * partitions / COUNT >= partition.
    return (int) (((long) partition * COUNT + partitions - 1) / partitions);
  }
}
