package io.idem.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.JedisClusterCRC16;

/** Key slots as Redis Cluster computes them, checked against Jedis's and Redis's own examples. */
class SlotsTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void crc16_isXmodem() {
    assertThat(Slots.crc16(b("123456789"), 0, 9)).isEqualTo(0x31C3); // the catalogue's check
  }

  @Test
  void slots_ofRedisDocumentedKeys() {
    // CLUSTER KEYSLOT as Redis's documentation shows it.
    assertThat(Slots.of(b("somekey"))).isEqualTo(11058);
    assertThat(Slots.of(b("foo{hash_tag}"))).isEqualTo(2515);
    assertThat(Slots.of(b("{user1000}.following"))).isEqualTo(Slots.of(b("{user1000}.followers")));
    // An empty tag is no tag: the whole key is hashed.
    assertThat(Slots.of(b("foo{}{bar}"))).isEqualTo(Slots.crc16(b("foo{}{bar}"), 0, 10) & 16383);
    assertThat(Slots.of(b("foo{{bar}}zap"))).isEqualTo(Slots.of(b("{bar")));
    assertThat(Slots.of(b("foo{bar}{zap}"))).isEqualTo(Slots.of(b("bar")));
  }

  @Test
  void slots_matchJedis_forRandomKeysWithAndWithoutTags() {
    SplittableRandom r = new SplittableRandom(16384);
    for (int i = 0; i < 20_000; i++) {
      byte[] key = new byte[r.nextInt(0, 40)];
      for (int j = 0; j < key.length; j++) {
        // Braces often, and every byte value, so tags of every shape occur.
        int x = r.nextInt(8);
        key[j] = x == 0 ? (byte) '{' : x == 1 ? (byte) '}' : (byte) r.nextInt(256);
      }
      assertThat(Slots.of(key)).as("key %d", i).isEqualTo(JedisClusterCRC16.getSlot(key));
    }
  }

  @Test
  void partitions_takeContiguousRanges_coveringEverySlotOnce() {
    for (int partitions : new int[] {1, 2, 3, 6, 7, 64, 1000, 16384}) {
      int expected = 0;
      for (int slot = 0; slot < Slots.COUNT; slot++) {
        int p = Slots.partition(slot, partitions);
        assertThat(p).isBetween(expected, expected + 1);
        if (p == expected + 1) {
          expected = p;
        }
        assertThat(Slots.firstSlot(p, partitions)).isLessThanOrEqualTo(slot);
        assertThat(Slots.firstSlot(p + 1, partitions)).isGreaterThan(slot);
      }
      assertThat(expected).isEqualTo(partitions - 1);
      assertThat(Slots.firstSlot(partitions, partitions)).isEqualTo(Slots.COUNT);
    }
  }
}
