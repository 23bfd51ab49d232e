package io.idem.core.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.dedup.DedupTable.Claimed;
import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Outcome;
import io.idem.core.dedup.DedupTable.Params;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A FILTER table's false-positive rate, measured with a million ids never claimed: within its
 * configured rate once the window holds its capacity, whether the claims spread over the slices or
 * all land in one (whose filter then grows far past its share). No false negatives. Fixed seeds.
 */
class DedupFilterRateTest {

  private static final long NOW = 1_700_000_000_000L;
  private static final long WINDOW = 8 * 3_600_000L;
  private static final int CAPACITY = 100_000;
  private static final int PROBES = 1_000_000;

  private final MemoryClaimStore store = new MemoryClaimStore();

  @ParameterizedTest
  @CsvSource({
    // rate, where the claims' event times fall, slices' filter kind
    "0.01,  window,    cuckoo",
    "0.001, window,    cuckoo",
    "0.001, one slice, cuckoo",
    "0.5,   window,    bloom",
  })
  void atCapacity_theMeasuredRateIsWithinTheConfigured(double rate, String spread, String kind) {
    Params p = new Params(Mode.FILTER, WINDOW, 8, CAPACITY, rate, 0);
    assertThat(DedupSizing.sliceFilter(p)).isEqualTo(kind);
    DedupTable t = DedupTable.create(p, Math.floorDiv(NOW - WINDOW, WINDOW / 8));
    Random r = new Random(11);
    byte[][] claimed = new byte[CAPACITY][];
    int batch = 1000;
    for (int from = 0; from < CAPACITY; from += batch) {
      byte[][] ids = new byte[batch][];
      byte[][] owners = new byte[batch][];
      long[] times = new long[batch];
      for (int i = 0; i < batch; i++) {
        ids[i] = new byte[16];
        r.nextBytes(ids[i]);
        owners[i] = new byte[0];
        times[i] = spread.equals("window") ? NOW - (long) (r.nextDouble() * WINDOW) : NOW;
        claimed[from + i] = ids[i];
      }
      List<Claimed> out = claim(t, p, ids, owners, times);
      if (rate < 0.1) {
        // A few of the later claims may be taken for duplicates: at most about the rate.
        assertThat(out.stream().filter(c -> c.outcome() != Outcome.NEW).count())
            .isLessThanOrEqualTo((long) Math.ceil(batch * rate * 3));
      }
    }
    int live = t.slices().live().size();
    assertThat(live).isEqualTo(spread.equals("window") ? TimeSlices.maxLive(p) : 1);

    for (byte[] id : claimed) {
      assertThat(t.contains(store, id, NOW)).isTrue();
    }
    long falsePositives = 0;
    for (int i = 0; i < PROBES; i++) {
      byte[] id = ("never claimed " + i).getBytes(StandardCharsets.UTF_8);
      if (t.contains(store, id, NOW)) {
        falsePositives++;
      }
    }
    double measured = (double) falsePositives / PROBES;
    assertThat(measured).as("measured rate").isLessThanOrEqualTo(rate * 1.1);
    assertThat(t.estimatedFalsePositiveRate()).as("estimated rate").isLessThanOrEqualTo(rate);
    // The estimate tracks what was measured (loosely: a million probes at 0.001 is a thousand).
    assertThat(measured).isGreaterThan(t.estimatedFalsePositiveRate() / 2);
  }

  private List<Claimed> claim(DedupTable t, Params p, byte[][] ids, byte[][] owners, long[] times) {
    return t.claim(store, DedupTable.Ids.of(ids), owners, times, NOW, x -> true);
  }
}
