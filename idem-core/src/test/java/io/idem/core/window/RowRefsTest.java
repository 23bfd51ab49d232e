package io.idem.core.window;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** Rows named by parts must hash and compare exactly as their built keys do in the row cache. */
class RowRefsTest {

  @Property(seed = "20261123", tries = 2000)
  void aRowsPartsHashAndCompareAsItsKey(
      @ForAll @Size(min = 1, max = 4) List<@Size(max = 40) byte[]> names,
      @ForAll @IntRange(min = 0, max = 7) int resolution,
      @ForAll long row,
      @ForAll @IntRange(min = 0, max = 3) int nameIndex) {
    byte[][] ns = names.toArray(new byte[0][]);
    int n = nameIndex % ns.length;
    WindowedTable.RowRefs refs = new WindowedTable.RowRefs(ns, 1);
    refs.add(resolution, row, n);
    byte[] key = WindowedTable.rowKey(resolution, row, ns[n]);
    assertThat(refs.size()).isEqualTo(1);
    assertThat(refs.key(0)).isEqualTo(key);
    assertThat(refs.hash(0)).isEqualTo(RowCache.hashOf(key));
    assertThat(refs.matches(0, key)).isTrue();
    for (int i = 0; i < key.length; i++) {
      byte[] other = key.clone();
      other[i]++;
      assertThat(refs.matches(0, other)).as("byte %d changed", i).isFalse();
    }
    assertThat(refs.matches(0, java.util.Arrays.copyOf(key, key.length + 1))).isFalse();
    assertThat(refs.matches(0, java.util.Arrays.copyOf(key, key.length - 1))).isFalse();
  }

  @Test
  void refsGrowPastTheirFirstCapacityAndKeepTheirOrder() {
    byte[][] names = {"ip:10.0.0.1".getBytes(), "email:a@b".getBytes()};
    WindowedTable.RowRefs refs = new WindowedTable.RowRefs(names, 1);
    for (int i = 0; i < 100; i++) {
      refs.add(i % 2, 1000 + i, i % 2);
    }
    assertThat(refs.size()).isEqualTo(100);
    for (int i = 0; i < 100; i++) {
      assertThat(refs.key(i)).isEqualTo(WindowedTable.rowKey(i % 2, 1000 + i, names[i % 2]));
    }
  }

  @Test
  void theCacheFindsRowsByPartsAndMissesWhatItDoesNotHold() {
    RowCache c = new RowCache(64);
    byte[][] names = {"a".getBytes(), "b".getBytes()};
    byte[] held = WindowedTable.rowKey(1, 7, names[0]);
    c.fill(c.readTicket(), held, new byte[] {42});
    WindowedTable.RowRefs refs = new WindowedTable.RowRefs(names, 4);
    refs.add(1, 7, 0); // held
    refs.add(1, 7, 1); // another name
    refs.add(0, 7, 0); // another resolution
    Object[] out = new Object[3];
    c.getAll(refs, out);
    assertThat((byte[]) out[0]).containsExactly(42);
    assertThat(out[1]).isSameAs(RowCache.MISS);
    assertThat(out[2]).isSameAs(RowCache.MISS);
  }
}
