package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Both Bloom layouts through the one interface the BF handlers use. */
class ScalableBloomTest {

  private static List<ScalableBloom> both(long capacity, boolean scaling) {
    return List.of(
        RedisBloomChain.create(capacity, 0.01, 2, !scaling),
        scaling
            ? ScalableBloomFilter.create(capacity, 0.01, 2)
            : ScalableBloomFilter.createNonScaling(capacity, 0.01));
  }

  private static byte[] item(int i) {
    return ("item-" + i).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void addedItemsAreFound_oneByOneAndBatched_asTheFilterGrowsLayerByLayer() {
    for (ScalableBloom f : both(100, true)) {
      SplittableRandom r = new SplittableRandom(7);
      long[] pair = new long[2];
      int added = 0;
      for (int i = 0; i < 2000; i++) {
        boolean grows = f.needsNewLayer();
        int layers = f.layerCount();
        // The next layer's bytes are asked for exactly when an add may need them.
        assertThat(f.bytesOfNextLayer() > 0).isEqualTo(grows);
        f.hash(item(i), pair);
        boolean present = f.mightContain(pair[0], pair[1]);
        boolean isNew = f.add(pair[0], pair[1]);
        assertThat(isNew).isEqualTo(!present);
        added += isNew ? 1 : 0;
        assertThat(f.layerCount()).isEqualTo(grows && isNew ? layers + 1 : layers);
      }
      assertThat(f.itemCount()).isEqualTo(added);
      assertThat(f.layerCount()).isGreaterThan(1);
      int n = 300;
      long[] a = new long[n];
      long[] b = new long[n];
      boolean[] found = new boolean[n];
      for (int j = 0; j < n; j++) {
        f.hash(item(r.nextInt(4000)), pair);
        a[j] = pair[0];
        b[j] = pair[1];
      }
      f.mightContainAll(a, b, n, found);
      for (int j = 0; j < n; j++) {
        assertThat(found[j]).isEqualTo(f.mightContain(a[j], b[j]));
      }
      for (int i = 0; i < 2000; i++) {
        assertThat(f.mightContainItem(item(i))).as("no false negative").isTrue();
      }
    }
  }

  @Test
  void aFullNonScalingFilterRefusesNewItems_inEitherLayout() {
    for (ScalableBloom f : both(50, false)) {
      long[] pair = new long[2];
      int i = 0;
      while (!f.needsNewLayer()) {
        f.hash(item(i++), pair);
        f.add(pair[0], pair[1]);
      }
      assertThat(f.bytesOfNextLayer()).isZero(); // nothing to allocate: it cannot grow
      int next = i;
      assertThatThrownBy(
              () -> {
                for (int j = next; j < next + 1000; j++) {
                  f.hash(item(j), pair);
                  f.add(pair[0], pair[1]);
                }
              })
          .isInstanceOf(FilterFullException.class);
      assertThat(f.layerCount()).isEqualTo(1);
    }
  }
}
