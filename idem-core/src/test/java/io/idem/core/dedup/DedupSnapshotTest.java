package io.idem.core.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.filter.BloomFilter;
import io.idem.core.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Snapshots of dedup tables: a table read back answers as the one written, pending claims (and the
 * released among them) included; truncated or corrupted bytes are an IOException, never another
 * exception. Fixed seeds.
 */
class DedupSnapshotTest {

  private static final long NOW = 1_700_000_000_000L;

  private MemoryClaimStore store = new MemoryClaimStore();

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * FILTER tables at a rate whose slices are cuckoo filters, and at one where Bloom is smaller (for
   * slices large enough that Bloom's 512-bit blocks cost nothing).
   */
  private static final double CUCKOO_RATE = 0.001;

  private static final double BLOOM_RATE = 0.5;
  private static final long BLOOM_CAPACITY = 100_000;

  /** Every kind of table: a mode, and for FILTER its slices' kind. */
  private static final List<Object[]> KINDS =
      List.of(
          new Object[] {Mode.EXACT, 0.01, 1000L},
          new Object[] {Mode.FILTER, CUCKOO_RATE, 1000L},
          new Object[] {Mode.FILTER, BLOOM_RATE, BLOOM_CAPACITY},
          new Object[] {Mode.RECENT, 0.01, 1000L});

  /** A table under key "t" with some claims, one released, some being written. */
  private DedupTable filled(Mode mode) {
    return filled(mode, mode == Mode.FILTER ? CUCKOO_RATE : 0.01, 1000);
  }

  private DedupTable filled(Mode mode, double rate, long capacity) {
    Params p = new Params(mode, 8 * 3_600_000L, 8, capacity, rate, mode == Mode.RECENT ? 64 : 0);
    DedupTable t =
        DedupTable.create(p, Math.floorDiv(NOW - p.windowMillis(), p.windowMillis() / 8));
    claim(t, "a", "o1");
    claim(t, "b", "o2");
    if (t instanceof ExactTable e) {
      e.startFlush(NOW, true); // a and b are being written
    }
    claim(t, "c", "o3");
    if (mode != Mode.FILTER) {
      t.release(store, b("b"), b("o2"), NOW);
    }
    return t;
  }

  private void claim(DedupTable t, String id, String owner) {
    t.claim(
        store, DedupTable.Ids.of(b(id)), new byte[][] {b(owner)}, new long[] {NOW}, NOW, x -> true);
  }

  private static byte[] snapshot(DedupTable t) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    DedupSnapshot.write(t, out, true);
    return out.toByteArray();
  }

  private static DedupTable read(byte[] bytes) throws IOException {
    return DedupSnapshot.read(new ByteArrayInputStream(bytes), 1 << 20, BloomFilter.Storage.HEAP);
  }

  @Test
  void filterSlices_cuckooWhereSmaller_bloomAtHighRates() {
    assertThat(filled(Mode.FILTER, CUCKOO_RATE, 1000).slices().live().values())
        .allMatch(s -> s.filter() instanceof io.idem.core.filter.CuckooFilter)
        .isNotEmpty();
    deleteT();
    assertThat(filled(Mode.FILTER, BLOOM_RATE, BLOOM_CAPACITY).slices().live().values())
        .allMatch(s -> s.filter() instanceof io.idem.core.filter.ScalableBloomFilter)
        .isNotEmpty();
  }

  /**
   * A snapshot as an older version wrote it: version 2 is 3 without the recipe's last byte (the row
   * bucket bits); version 1 is 2 without cuckoo slices.
   */
  private static byte[] asVersion(byte[] v3, int version) {
    assertThat(v3[0]).isEqualTo((byte) 3);
    int bucketBits = 1 + DedupSnapshot.RECIPE_BYTES - 1;
    byte[] old = new byte[v3.length - 1];
    System.arraycopy(v3, 0, old, 0, bucketBits);
    System.arraycopy(v3, bucketBits + 1, old, bucketBits, v3.length - bucketBits - 1);
    old[0] = (byte) version;
    return old;
  }

  @Test
  void olderSnapshots_stillRead_butForExactTablesOfUnpackedRows() throws IOException {
    byte[] bloom = snapshot(filled(Mode.FILTER, BLOOM_RATE, BLOOM_CAPACITY));
    deleteT();
    byte[] cuckoo = snapshot(filled(Mode.FILTER, CUCKOO_RATE, 1000));
    deleteT();
    byte[] recent = snapshot(filled(Mode.RECENT));
    deleteT();
    for (byte[] old :
        List.of(
            asVersion(bloom, 1), asVersion(bloom, 2), asVersion(cuckoo, 2), asVersion(recent, 1))) {
      DedupTable back = read(old);
      for (String id : List.of("a", "b", "c", "d")) {
        boolean held =
            back.params().mode() == Mode.RECENT
                ? id.equals("a") || id.equals("c")
                : !id.equals("d");
        assertThat(back.contains(store, b(id), NOW)).as(id).isEqualTo(held);
      }
    }
    assertThatThrownBy(() -> read(asVersion(cuckoo, 1)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("corrupt dedup snapshot slice");
    byte[] exact = asVersion(snapshot(filled(Mode.EXACT)), 2);
    assertThatThrownBy(() -> read(exact))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("an EXACT dedup table from before rows were packed");
    cuckoo[0] = 4;
    assertThatThrownBy(() -> read(cuckoo))
        .isInstanceOf(IOException.class)
        .hasMessage("dedup snapshot version 4, this Idem reads 1 to 3");
  }

  /** A fresh store for the next table, as a deleted key's rows go with it. */
  private void deleteT() {
    store = new MemoryClaimStore();
  }

  @Test
  void roundTrip_answersAsTheTableWritten_inEveryMode() throws IOException {
    for (Object[] kind : KINDS) {
      Mode mode = (Mode) kind[0];
      DedupTable t = filled(mode, (double) kind[1], (long) kind[2]);
      DedupTable back = read(snapshot(t));
      MemoryClaimStore noRows = new MemoryClaimStore();
      for (String id : List.of("a", "b", "c", "d")) {
        assertThat(back.contains(noRows, b(id), NOW))
            .as("%s %s", mode, id)
            .isEqualTo(t.contains(store, b(id), NOW));
      }
      assertThat(back.items()).as("%s items", mode).isEqualTo(t.items());
      // Read back, a table writes the bytes it was read from; a live table's first snapshot can
      // differ only for EXACT, whose released pending claims are dropped on reading.
      assertThat(snapshot(read(snapshot(back)))).as("%s stable", mode).isEqualTo(snapshot(back));
      if (mode != Mode.EXACT) {
        assertThat(snapshot(back)).as("%s same bytes", mode).isEqualTo(snapshot(t));
      }
      deleteT();
    }
  }

  @Test
  void exact_pendingClaimsSurvive_releasedOnesDoNot() throws IOException {
    DedupTable back = read(snapshot(filled(Mode.EXACT)));
    // Nothing was written as rows: the snapshot alone holds a and c.
    MemoryClaimStore noRows = new MemoryClaimStore();
    assertThat(back.contains(noRows, b("a"), NOW)).isTrue();
    assertThat(back.contains(noRows, b("b"), NOW)).isFalse();
    assertThat(back.contains(noRows, b("c"), NOW)).isTrue();
    assertThat(((ExactTable) back).unwrittenClaims()).isEqualTo(2);
  }

  @Test
  void exact_aReleaseTheBackgroundWriteUndid_staysReleasedAcrossACrash() throws IOException {
    Params p = new Params(Mode.EXACT, 8 * 3_600_000L, 8, 1000, 0.01, 0);
    ExactTable t =
        (ExactTable)
            DedupTable.create(p, Math.floorDiv(NOW - p.windowMillis(), p.windowMillis() / 8));
    claim(t, "x", "o1");
    List<io.idem.core.store.RowChange> puts = t.startFlush(NOW, true);
    t.release(store, b("x"), b("o1"), NOW); // deletes x's row
    store.apply(puts); // ... which the write brings back
    byte[] crashed = snapshot(t); // taken before the write's undo was recorded; then a crash

    ExactTable back = (ExactTable) read(crashed);
    assertThat(back.contains(store, b("x"), NOW)).isFalse();
    // The restarted table's first write deletes the row its released claim may have left.
    store.apply(back.startFlush(NOW, true));
    store.apply(back.finishFlush());
    byte[] row =
        store.row(
            back.rowKeyOf(back.slices().claimSlice(NOW, NOW), new Hash128().hash(b("x")).h1()));
    assertThat(row).isNotNull(); // the claim's record, then the release's
    assertThat(ClaimRows.holderIn(row, b("x"))).isNull();
    assertThat(back.contains(store, b("x"), NOW)).isFalse();
  }

  @Test
  void truncatedOrCorruptSnapshots_areAnIOException() throws IOException {
    Random r = new Random(7);
    for (Object[] kind : KINDS) {
      Mode mode = (Mode) kind[0];
      byte[] good = snapshot(filled(mode, (double) kind[1], (long) kind[2]));
      deleteT();
      for (int cut = 0; cut < good.length; cut++) {
        byte[] bad = java.util.Arrays.copyOf(good, cut);
        assertThatThrownBy(() -> read(bad))
            .as("%s cut at %d", mode, cut)
            .isInstanceOf(IOException.class);
      }
      for (int i = 0; i < 2000; i++) {
        byte[] bad = good.clone();
        bad[r.nextInt(bad.length)] = (byte) r.nextInt(256);
        try {
          read(bad);
        } catch (IOException expected) {
          // a clear error: fine
        }
      }
    }
  }
}
