package io.idem.server.commands.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.dedup.DedupTable.Params;
import io.idem.server.engine.Engine;
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
    Engine engine = Engine.inMemory();
    long sliceMillis = p.windowMillis() / p.slices();
    long now = NOW / sliceMillis * sliceMillis;
    DedupTable t = new DedupTable(p, Math.floorDiv(now - p.windowMillis(), sliceMillis));
    engine.write(
        "t".getBytes(StandardCharsets.UTF_8),
        tx -> {
          tx.create(DedupCodec.INSTANCE, t, DedupCodec.recipe(p, t.base()));
          // One claim at each slice boundary back from now: the slice holding now - window too.
          for (int i = 0; i < DedupTable.maxLiveSlices(p); i++) {
            long at = Math.max(now - p.windowMillis(), now - i * sliceMillis);
            byte[] id = ("id" + i).getBytes(StandardCharsets.UTF_8);
            t.claim(
                tx,
                engine.rows(),
                tx.entry().id(),
                DedupTable.Ids.of(new byte[][] {id}),
                new byte[][] {{1}},
                new long[] {at},
                now,
                x -> true);
          }
          return null;
        });
    long bytes = 0;
    for (DedupTable.Slice s : t.liveSlices().values()) {
      bytes += s.filter.sizeInBytes();
    }
    assertThat(t.liveSlices()).hasSize(DedupSizing.maxLiveSlices(p));
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
