package io.idem.core.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The row cache: what a reader may fill, and sums that never go back under concurrent writes. */
class RowCacheTest {

  private static byte[] key(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aFillCachesCopiesOfItsKeyAndRow_andAnEmptyRowStaysDistinctFromAbsent() {
    RowCache c = new RowCache(16);
    byte[] k = key("a");
    byte[] row = {1, 2};
    c.fill(c.readTicket(), k, row);
    Object cached = c.get(key("a"));
    assertThat(cached).isNotSameAs(row); // a copy, allocated beside its entry
    row[0] = 7;
    k[0] = 'z';
    assertThat((byte[]) c.get(key("a"))).containsExactly(1, 2);
    assertThat(c.get(key("z"))).isSameAs(RowCache.MISS);
    c.fill(c.readTicket(), key("e"), new byte[0]);
    assertThat((byte[]) c.get(key("e"))).isEmpty(); // an empty row, not a row cached as absent
  }

  @Test
  void aReaderFillsOnlyIfNoWriteBeganOrEndedSinceItsTicket() {
    RowCache c = new RowCache(16);
    assertThat(c.get(key("a"))).isSameAs(RowCache.MISS);
    long ticket = c.readTicket();
    c.fill(ticket, key("a"), new byte[] {1});
    assertThat((byte[]) c.get(key("a"))).containsExactly(1);
    c.fill(c.readTicket(), key("b"), null);
    assertThat(c.get(key("b"))).isNull(); // cached as absent: a hit

    // A write begins after the reader's ticket: the row it read may be older than the write's.
    long stale = c.readTicket();
    c.beginWrite();
    c.put(key("a"), new byte[] {2});
    c.fill(stale, key("c"), new byte[] {9});
    assertThat(c.get(key("c"))).isSameAs(RowCache.MISS);
    c.endWrite();
    c.fill(stale, key("c"), new byte[] {9});
    assertThat(c.get(key("c"))).isSameAs(RowCache.MISS);
    // A ticket taken while a write is under way fills nothing.
    c.beginWrite();
    long during = c.readTicket();
    c.endWrite();
    c.fill(during, key("d"), new byte[] {3});
    assertThat(c.get(key("d"))).isSameAs(RowCache.MISS);
  }

  @Test
  void writesUpdateCachedRowsButCacheNoOthers() {
    RowCache c = new RowCache(1024);
    c.beginWrite();
    c.put(key("a"), new byte[] {1}); // nothing filled yet: not even the slot array
    c.endWrite();
    assertThat(c.bytes()).isZero();
    c.fill(c.readTicket(), key("a"), new byte[] {1});
    c.fill(c.readTicket(), key("gone"), new byte[] {5});
    long filled = c.bytes();
    assertThat(c.filled()).isEqualTo(2);

    c.beginWrite();
    c.put(key("a"), new byte[] {2, 2});
    c.put(key("gone"), null);
    c.put(key("new"), new byte[] {3});
    c.endWrite();
    assertThat((byte[]) c.get(key("a"))).containsExactly(2, 2);
    assertThat(c.get(key("gone"))).isNull(); // deleted: cached as absent
    assertThat(c.get(key("new"))).isSameAs(RowCache.MISS);
    assertThat(c.filled()).isEqualTo(2);
    // One byte more for a's row, one less for gone's; nothing in the sets of keys not cached.
    assertThat(c.bytes()).isEqualTo(filled);
  }

  @Test
  void aWriteBeforeAReaderClaimsItsSet_stopsTheFill() {
    // The reader passed its first check before the write began (the fill makes the slot array
    // first, so the write finds one); it checks again once it holds the set, whatever the set
    // held, and the write evicts nothing.
    for (int held = 0; held <= RowCache.WAYS; held++) {
      RowCache c = new RowCache(RowCache.WAYS); // one set: every key shares it
      List<String> others = List.of("o1", "o2", "o3", "o4").subList(0, held);
      for (String o : others) {
        c.fill(c.readTicket(), key(o), new byte[] {7});
      }
      assertThat(c.filled()).isEqualTo(held);
      c.fill(
          c.readTicket(),
          key("k"),
          new byte[] {1},
          () -> {
            c.beginWrite();
            c.put(key("k"), new byte[] {2});
            c.endWrite();
          },
          () -> {});
      assertThat(c.get(key("k"))).as("set held %d", held).isSameAs(RowCache.MISS);
      for (String o : others) {
        assertThat((byte[]) c.get(key(o))).containsExactly(7);
      }
      // Without the write, the same fill lands (in a full set, in place of another row).
      c.fill(c.readTicket(), key("k"), new byte[] {2});
      assertThat((byte[]) c.get(key("k"))).as("set held %d", held).containsExactly(2);
      assertThat(c.filled()).isEqualTo(Math.min(held + 1, RowCache.WAYS));
    }
  }

  @Test
  @Timeout(30) // a reader that waited for the claim, or a writer that never got it, hangs
  void aWriteWhileAReaderHoldsTheSet_waitsForIt_andReplacesItsRow() throws Exception {
    // The reader checked before the write began and is storing its (now stale) row: the writer
    // must wait for the set, then find that row and replace it.
    RowCache c = new RowCache(RowCache.WAYS);
    AtomicReference<Thread> writer = new AtomicReference<>();
    c.fill(
        c.readTicket(),
        key("k"),
        new byte[] {1},
        () -> {},
        () -> {
          writer.set(
              Thread.ofPlatform()
                  .start(
                      () -> {
                        c.beginWrite();
                        c.put(key("k"), new byte[] {2});
                        c.endWrite();
                      }));
          try {
            while ((c.readTicket() & 1) == 0) { // until the write has begun
              Thread.onSpinWait();
            }
            // It cannot end while this reader holds the set, however long it is given.
            writer.get().join(50);
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
          assertThat(writer.get().isAlive()).isTrue();
        });
    writer.get().join();
    assertThat((byte[]) c.get(key("k"))).containsExactly(2);
    assertThat(c.filled()).isEqualTo(1);
  }

  @Test
  @Timeout(30) // a reader that waited for the claim, or a writer that never got it, hangs
  void aReaderThatFindsTheSetHeld_fillsNothing() {
    RowCache c = new RowCache(RowCache.WAYS);
    c.fill(
        c.readTicket(),
        key("k"),
        new byte[] {1},
        () -> {},
        () -> c.fill(c.readTicket(), key("j"), new byte[] {2}));
    assertThat((byte[]) c.get(key("k"))).containsExactly(1);
    assertThat(c.get(key("j"))).isSameAs(RowCache.MISS);
    c.fill(c.readTicket(), key("j"), new byte[] {2}); // the set is free again
    assertThat((byte[]) c.get(key("j"))).containsExactly(2);
  }

  @Test
  void aSetHoldsFourKeys_andAFifthEvictsOne() {
    RowCache c = new RowCache(RowCache.WAYS); // one set of four ways
    c.fill(c.readTicket(), key("a"), new byte[] {1});
    c.fill(c.readTicket(), key("b"), null);
    c.fill(c.readTicket(), key("c"), new byte[] {1, 2});
    c.fill(c.readTicket(), key("d"), new byte[] {1, 2, 3});
    assertThat((byte[]) c.get(key("a"))).containsExactly(1);
    assertThat(c.get(key("b"))).isNull();
    assertThat((byte[]) c.get(key("c"))).containsExactly(1, 2);
    assertThat((byte[]) c.get(key("d"))).containsExactly(1, 2, 3);
    assertThat(c.filled()).isEqualTo(4);
    long four = c.bytes();

    c.fill(c.readTicket(), key("e"), new byte[] {3, 3});
    assertThat((byte[]) c.get(key("e"))).containsExactly(3, 3);
    List<String> kept = new java.util.ArrayList<>();
    for (String k : new String[] {"a", "b", "c", "d"}) {
      if (c.get(key(k)) != RowCache.MISS) {
        kept.add(k);
      }
    }
    assertThat(kept).hasSize(3);
    assertThat(c.filled()).isEqualTo(4);
    // e's row (two bytes) replaced a's (one byte), b's (none), c's (two) or d's (three).
    assertThat(c.bytes() - four).isIn(1L, 2L, 0L, -1L);

    // A fill of a key already cached changes nothing, in any way.
    long before = c.bytes();
    c.fill(c.readTicket(), key("e"), new byte[] {9});
    assertThat((byte[]) c.get(key("e"))).containsExactly(3, 3);
    assertThat(c.bytes()).isEqualTo(before);
  }

  @Test
  void aFullSetEvictsEachOfItsWays_notAlwaysTheSameOne() {
    // Fills that all land in one full set: each of the four ways is evicted by some. A fixed
    // victim would let two hot keys evict each other forever beside rows no query reads any more.
    RowCache c = new RowCache(RowCache.WAYS);
    java.util.Set<String> evicted = new java.util.HashSet<>();
    List<String> cached = new java.util.ArrayList<>(List.of("w0", "w1", "w2", "w3"));
    for (String k : cached) {
      c.fill(c.readTicket(), key(k), new byte[] {1});
    }
    for (int i = 0; i < 200 && evicted.size() < RowCache.WAYS; i++) {
      String k = "n" + i;
      c.fill(c.readTicket(), key(k), new byte[] {1});
      for (String old : List.copyOf(cached)) {
        if (c.get(key(old)) == RowCache.MISS) {
          cached.remove(old);
          if (old.startsWith("w")) {
            evicted.add(old);
          }
        }
      }
      cached.add(k);
      assertThat(cached).hasSize(RowCache.WAYS);
    }
    assertThat(evicted).containsExactlyInAnyOrder("w0", "w1", "w2", "w3");
  }

  @Test
  void aKeyIsNeverCachedInTwoWays() {
    // The reader saw the set empty; before it held the set, another row took the first way and
    // another reader cached the same key in the second. The first reader must look again.
    RowCache c = new RowCache(RowCache.WAYS);
    c.fill(
        c.readTicket(),
        key("k"),
        new byte[] {1},
        () -> {
          c.fill(c.readTicket(), key("o1"), new byte[] {7}); // the first way
          c.fill(c.readTicket(), key("k"), new byte[] {1}); // the second
        },
        () -> {});
    assertThat((byte[]) c.get(key("o1"))).containsExactly(7);
    assertThat((byte[]) c.get(key("k"))).containsExactly(1);
    assertThat(c.filled()).isEqualTo(2);
    assertThat(c.bytes())
        .isEqualTo(
            RowCache.WAYS * RowCache.SLOT_BYTES
                + (RowCache.ENTRY_BYTES + 2 + 1)
                + (RowCache.ENTRY_BYTES + 1 + 1));
  }

  @Test
  void aKeyIsNeverCachedInTwoWays_whenItTakesTheLastWay() {
    // As above, with the set filling up meanwhile: the other reader's copy lands in the fourth
    // way, where the first reader must find it too. Were it missed, the full set would lose a row
    // chosen at random (k's own copy a time in four): so, twenty times.
    for (int round = 0; round < 20; round++) {
      RowCache c = new RowCache(RowCache.WAYS);
      c.fill(
          c.readTicket(),
          key("k"),
          new byte[] {1},
          () -> {
            for (String o : List.of("o1", "o2", "o3")) {
              c.fill(c.readTicket(), key(o), new byte[] {7});
            }
            c.fill(c.readTicket(), key("k"), new byte[] {1}); // the last way
          },
          () -> {});
      assertThat(c.filled()).isEqualTo(RowCache.WAYS);
      for (String o : List.of("o1", "o2", "o3")) {
        assertThat((byte[]) c.get(key(o))).as("round %d, %s", round, o).containsExactly(7);
      }
      assertThat((byte[]) c.get(key("k"))).containsExactly(1);
    }
  }

  @Test
  void getAll_findsARowInEachOfTheFourWays() {
    RowCache c = new RowCache(RowCache.WAYS); // one set: the fills take its ways in order
    List<byte[]> keys = List.of(key("w0"), key("w1"), key("w2"), key("w3"));
    for (int i = 0; i < keys.size(); i++) {
      c.fill(c.readTicket(), keys.get(i), new byte[] {(byte) i});
    }
    Object[] out = new Object[keys.size()];
    c.getAll(keys, out);
    for (int i = 0; i < keys.size(); i++) {
      assertThat((byte[]) out[i]).as("way %d", i).containsExactly(i);
      assertThat((byte[]) c.get(keys.get(i))).as("way %d", i).containsExactly(i);
    }
    // Written to in its way, found there again.
    c.beginWrite();
    c.put(keys.get(3), new byte[] {9});
    c.endWrite();
    c.getAll(keys, out);
    assertThat((byte[]) out[3]).containsExactly(9);
  }

  @Test
  void keysOfEqualHash_shareASet_andAreToldApartByTheirBytes() {
    byte[] aa = key("Aa");
    byte[] bb = key("BB"); // Arrays.hashCode equal to Aa's: the same set, the same tag
    assertThat(Arrays.hashCode(aa)).isEqualTo(Arrays.hashCode(bb));
    RowCache c = new RowCache(1024);
    c.fill(c.readTicket(), aa, new byte[] {1});
    c.fill(c.readTicket(), bb, new byte[] {2});
    Object[] out = new Object[3];
    c.getAll(List.of(bb, aa, key("Ab")), out);
    assertThat((byte[]) out[0]).containsExactly(2);
    assertThat((byte[]) out[1]).containsExactly(1);
    assertThat(out[2]).isSameAs(RowCache.MISS);
    c.beginWrite();
    c.put(aa, new byte[] {3});
    c.endWrite();
    c.getAll(List.of(aa, bb), out);
    assertThat((byte[]) out[0]).containsExactly(3);
    assertThat((byte[]) out[1]).containsExactly(2); // a write to one leaves the other alone
    assertThat((byte[]) c.get(bb)).containsExactly(2);
  }

  @Test
  void aKeyWhoseHashIsZero_isCachedAsAnyOther() {
    byte[] zero = {(byte) -31}; // Arrays.hashCode 31 - 31 = 0, what an empty entry would carry
    assertThat(Arrays.hashCode(zero)).isZero();
    RowCache c = new RowCache(4);
    long stale = c.readTicket();
    c.beginWrite();
    c.endWrite();
    c.fill(stale, key("x"), null); // refused, but the slot array is there now
    c.beginWrite();
    c.put(zero, new byte[] {1}); // not cached: nothing to replace
    c.endWrite();
    Object[] out = new Object[1];
    c.getAll(List.of(zero), out);
    assertThat(out[0]).isSameAs(RowCache.MISS);
    assertThat(c.get(zero)).isSameAs(RowCache.MISS);
    c.fill(c.readTicket(), zero, new byte[] {1});
    c.getAll(List.of(zero), out);
    assertThat((byte[]) out[0]).containsExactly(1);
    assertThat((byte[]) c.get(zero)).containsExactly(1);
  }

  @Test
  void keysThatShareASetStayCached_inAFullCache() {
    // 512 keys in 1,024 slots. Direct-mapped, they would fill about 1,024 (1 - e^-0.5) = 403
    // slots and lose the rest to collisions; in 512 sets of two ways, keys beyond the second of a
    // set, about 512 * 0.10 = 53; in 256 sets of four ways, keys beyond the fourth, about 19.
    RowCache c = new RowCache(1024);
    List<byte[]> keys = new java.util.ArrayList<>();
    for (int i = 0; i < 512; i++) {
      keys.add(key("row" + i));
    }
    for (byte[] k : keys) {
      c.fill(c.readTicket(), k, k);
    }
    int hits = 0;
    for (byte[] k : keys) {
      Object hit = c.get(k);
      if (hit != RowCache.MISS) {
        assertThat((byte[]) hit).isEqualTo(k);
        hits++;
      }
    }
    assertThat(hits).isEqualTo(c.filled()).isGreaterThan(480);
  }

  @Test
  void getAll_answersAsGetDoes_forHitsAbsentsAndMisses() {
    RowCache c = new RowCache(64); // keys share some slots, and many stay empty
    List<byte[]> keys = new java.util.ArrayList<>();
    for (int i = 0; i < 40; i++) {
      keys.add(key("k" + i));
    }
    Object[] out = new Object[keys.size()];
    c.getAll(keys, out); // no slot array yet
    assertThat(out).containsOnly(RowCache.MISS);
    for (int i = 0; i < 40; i += 3) {
      c.fill(c.readTicket(), keys.get(i), i % 2 == 0 ? null : new byte[] {(byte) i});
    }
    long filledBytes = c.bytes();
    c.beginWrite();
    for (int i = 1; i < 40; i += 3) {
      c.put(keys.get(i), new byte[] {(byte) i}); // not cached: changes nothing here
    }
    c.endWrite();
    assertThat(c.bytes()).isEqualTo(filledBytes);
    c.getAll(keys, out);
    int hits = 0;
    for (int i = 0; i < keys.size(); i++) {
      assertThat(out[i]).as("k%d", i).isEqualTo(c.get(keys.get(i)));
      hits += out[i] == RowCache.MISS ? 0 : 1;
    }
    assertThat(hits).isEqualTo(c.filled()).isPositive();
  }

  @Test
  void concurrentReadersNeverSeeACountGoBack_throughASmallCache() throws Exception {
    // One writer adds 1 at a time under the table's lock; readers sum without it, through a
    // cache small enough that rows evict each other. A stale row cached after a write would show
    // as a sum lower than one the same reader saw before.
    List<Resolution> res = List.of(new Resolution(60_000, 3_600_000));
    WindowedCounters table = new WindowedCounters(res, 4);
    ConcurrentHashMap<java.nio.ByteBuffer, byte[]> store = new ConcurrentHashMap<>();
    WindowedCounters.RowSource source = k -> store.get(java.nio.ByteBuffer.wrap(k));
    long now = 1_700_000_000_000L;
    byte[][] names = {key("a"), key("b"), key("c"), key("d"), key("e")};
    AtomicBoolean done = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread[] readers = new Thread[2];
    for (int t = 0; t < readers.length; t++) {
      readers[t] =
          Thread.ofPlatform()
              .start(
                  () -> {
                    long[] seen = new long[names.length];
                    try {
                      while (!done.get()) {
                        long[] sums =
                            table.sums(source, names, new long[] {3_600_000}, new int[] {0}, now);
                        for (int i = 0; i < names.length; i++) {
                          assertThat(sums[i]).isGreaterThanOrEqualTo(seen[i]);
                          seen[i] = sums[i];
                        }
                      }
                    } catch (Throwable e) {
                      failure.compareAndSet(null, e);
                    }
                  });
    }
    Object lock = new Object();
    for (int i = 0; i < 200_000; i++) {
      synchronized (lock) {
        WindowedCounters.Increments inc = table.increments(source, now);
        try {
          inc.add(names[i % names.length], now - (i % 50) * 60_000L, 1);
        } catch (IOException e) {
          throw new AssertionError(e);
        }
        inc.writeTo(
            (keys, rows) -> {
              for (int k = 0; k < keys.size(); k++) {
                store.put(java.nio.ByteBuffer.wrap(keys.get(k)), rows.get(k));
              }
            });
      }
    }
    done.set(true);
    for (Thread t : readers) {
      t.join();
    }
    assertThat(failure.get()).isNull();
    long[] sums = table.sums(source, names, new long[] {3_600_000}, new int[] {0}, now);
    assertThat(sums).hasSize(names.length).containsOnly(200_000 / names.length);
  }
}
