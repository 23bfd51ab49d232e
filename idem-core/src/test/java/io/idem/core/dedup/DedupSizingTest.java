package io.idem.core.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.dedup.DedupTable.Params;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * What {@code idem size} prints (DedupSizing) is what a table allocates: filled with a claim in
 * every slice it can hold live, a table's filters take exactly DedupSizing's bytes.
 */
class DedupSizingTest {

  private static final long NOW = 1_700_000_000_000L;

  /**
   * The filters' bytes of a table with one claim in each of its live slices, at a moment when the
   * most slices are live (now at the start of a slice).
   */
  private static long filterBytesWhenEveryLiveSliceHoldsAClaim(Params p) {
    long sliceMillis = p.windowMillis() / p.slices();
    long now = NOW / sliceMillis * sliceMillis;
    DedupTable t = DedupTable.create(p, Math.floorDiv(now - p.windowMillis(), sliceMillis));
    MemoryClaimStore store = new MemoryClaimStore();
    // One claim at each slice boundary back from now: the slice holding now - window too.
    for (int i = 0; i < DedupSizing.maxLiveSlices(p); i++) {
      long at = Math.max(now - p.windowMillis(), now - i * sliceMillis);
      byte[] id = ("id" + i).getBytes(StandardCharsets.UTF_8);
      t.claim(store, DedupTable.Ids.of(id), new byte[][] {{1}}, new long[] {at}, now, x -> true);
    }
    long bytes = 0;
    for (TimeSlices.Slice s : t.slices().live().values()) {
      bytes += s.filter().sizeInBytes();
    }
    assertThat(t.slices().live()).hasSize(DedupSizing.maxLiveSlices(p));
    return bytes;
  }

  @Test
  void exactAndFilterTables_allocateWhatDedupSizingSays() {
    for (Params p :
        new Params[] {
          DedupSizing.exact(3_600_000, 8, 3_600_000),
          DedupSizing.exact(86_400_000, 24, 1_000_000),
          DedupSizing.filter(3_600_000, 8, 100_000, 1e-6),
          DedupSizing.filter(10_000, 3, 10_000, 0.01), // 10 s in 3: one more slice live
        }) {
      assertThat(filterBytesWhenEveryLiveSliceHoldsAClaim(p))
          .as("%s", p)
          .isEqualTo(DedupSizing.bytes(p));
    }
  }
}
