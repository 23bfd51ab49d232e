package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ScalableBloomFilterTest {

  @Test
  void create_defaults_areRedisBloomsDefaults() {
    ScalableBloomFilter f = ScalableBloomFilter.create();
    assertThat(f.initialCapacity()).isEqualTo(100);
    assertThat(f.configuredErrorRate()).isEqualTo(0.01);
    assertThat(f.expansion()).isEqualTo(2);
    assertThat(f.layerCount()).isEqualTo(1);
    // The first layer is already tightened, so the compound rate stays below the configured one.
    assertThat(f.layer(0).configuredErrorRate()).isEqualTo(0.005);
  }

  @ParameterizedTest
  @EnumSource(BloomFilter.Storage.class)
  void storage_isEveryLayers_whenGrown_read_loaded_andNonScaling(BloomFilter.Storage storage)
      throws Exception {
    ScalableBloomFilter grown = ScalableBloomFilter.create(100, 0.01, 2, storage);
    Items items = new Items(3);
    for (int i = 0; i < 1500; i++) {
      items.add(grown, i);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    grown.writeTo(out);
    ScalableBloomFilter read =
        ScalableBloomFilter.readFrom(
            new ByteArrayInputStream(out.toByteArray()), Long.MAX_VALUE, storage);
    ScalableBloomFilter loaded =
        ScalableBloomFilter.ofLayers(
            0.01, 100, 2, List.of(BloomFilter.ofShape(100, 0.005, 7, 2, 0, storage)));
    for (int i = 0; i < 300; i++) {
      items.add(loaded, i); // past the loaded layer's capacity: new layers
    }
    assertThat(grown.layerCount()).isEqualTo(4);
    assertThat(read.layerCount()).isEqualTo(4);
    assertThat(loaded.layerCount()).isGreaterThan(1);
    for (ScalableBloomFilter f : List.of(grown, read, loaded)) {
      for (int i = 0; i < f.layerCount(); i++) {
        assertThat(f.layer(i).storage()).as("layer %s of %s", i, f).isEqualTo(storage);
      }
    }
    assertThat(ScalableBloomFilter.createNonScaling(100, 0.01, storage).layer(0).storage())
        .isEqualTo(storage);
  }

  @Test
  void add_pastEachLayersCapacity_addsLayersOfGrowingCapacityAndHalvingRate() {
    ScalableBloomFilter f = ScalableBloomFilter.create(100, 0.01, 2);
    Items items = new Items(3);
    for (int i = 0; i < 1500; i++) {
      items.add(f, i);
    }
    assertThat(f.layerCount()).isEqualTo(4); // 100 + 200 + 400 + 800 >= 1500
    for (int i = 0; i < 4; i++) {
      assertThat(f.layer(i).capacity()).isEqualTo(100L << i);
      assertThat(f.layer(i).configuredErrorRate()).isEqualTo(0.01 * Math.pow(0.5, i + 1));
    }
    assertThat(f.capacity()).isEqualTo(1500);
    assertThat(f.itemCount()).isLessThanOrEqualTo(1500).isGreaterThan(1480);
  }

  @Property(seed = "42", tries = 30)
  void add_anyGrowth_neverFalseNegative(
      @ForAll @IntRange(min = 10, max = 500) int capacity,
      @ForAll @IntRange(min = 1, max = 4) int expansion) {
    ScalableBloomFilter f = ScalableBloomFilter.create(capacity, 0.01, expansion);
    Items items = new Items(capacity);
    for (int i = 0; i < 5000; i++) {
      items.add(f, i);
    }
    for (int i = 0; i < 5000; i++) {
      assertThat(items.mightContain(f, i)).isTrue();
    }
  }

  @Test
  void addUnchecked_growsAsAdd_andNothingAddedIsMissed() {
    ScalableBloomFilter f = ScalableBloomFilter.create(100, 0.01, 2);
    Items items = new Items(5);
    for (int i = 0; i < 1500; i++) {
      Hash128 h = items.item(i);
      f.addUnchecked(h.h1(), h.h2());
    }
    assertThat(f.layerCount()).isEqualTo(4);
    for (int i = 0; i < 1500; i++) {
      assertThat(items.mightContain(f, i)).isTrue();
    }
    // Unlike add, a present item is not looked for: the newest layer takes it again.
    Hash128 h = items.item(0);
    f.addUnchecked(h.h1(), h.h2());
    assertThat(f.layer(f.layerCount() - 1).mightContain(h.h1(), h.h2())).isTrue();
  }

  @Test
  void add_existingItem_returnsFalseAndDoesNotCount() {
    ScalableBloomFilter f = ScalableBloomFilter.create();
    Items items = new Items(1);
    assertThat(items.add(f, 1)).isTrue();
    assertThat(items.add(f, 1)).isFalse();
    assertThat(f.itemCount()).isEqualTo(1);
  }

  @Test
  void add_nonScalingFull_throwsButExistingItemsStillAnswer() {
    ScalableBloomFilter f = ScalableBloomFilter.createNonScaling(100, 0.01);
    assertThat(f.layer(0).configuredErrorRate()).isEqualTo(0.01);
    Items items = new Items(2);
    int added = 0;
    int i = 0;
    while (added < 100) {
      if (items.add(f, i++)) {
        added++;
      }
    }
    long last = i - 1;
    assertThat(items.add(f, last)).isFalse(); // present: no error, as RedisBloom
    long absent = i;
    while (items.mightContain(f, absent)) {
      absent++;
    }
    long newItem = absent;
    assertThatThrownBy(() -> items.add(f, newItem))
        .isInstanceOf(FilterFullException.class)
        .hasMessage("non scaling filter is full");
    assertThat(f.layerCount()).isEqualTo(1);
    assertThat(f.itemCount()).isEqualTo(100);
    for (int j = 0; j < i; j++) {
      assertThat(items.mightContain(f, j)).as("item %s", j).isTrue();
    }
  }

  @Test
  void grownTo64TimesCapacity_staysWithinConfiguredOverallRate() {
    double error = 0.01;
    ScalableBloomFilter f = ScalableBloomFilter.create(10_000, error, 2);
    Items items = new Items(4);
    int n = 64 * 10_000;
    for (int i = 0; i < n; i++) {
      items.add(f, i);
    }
    assertThat(f.layerCount()).isEqualTo(7); // 10k * (1 + 2 + ... + 64) = 1.27 M >= 640 k
    long probes = 2_000_000;
    double measured = (double) items.falsePositives(f, n, probes) / probes;
    assertThat(measured).isLessThanOrEqualTo(error);
    assertThat(f.estimatedFalsePositiveRate()).isLessThanOrEqualTo(error);
  }

  @Test
  void add_tinyLayersWithoutExpansion_floorsTheLayerRateAndStopsAtTheLayerLimit() {
    ScalableBloomFilter f = ScalableBloomFilter.create(1, 0.01, 1);
    Items items = new Items(8);
    int i = 0;
    try {
      for (; i < 2000; i++) {
        items.add(f, i);
      }
    } catch (FilterFullException e) {
      assertThat(e).hasMessage("filter reached its limit of 1000 layers");
    }
    assertThat(f.layerCount()).isEqualTo(ScalableBloomFilter.MAX_LAYERS);
    assertThat(f.layer(999).configuredErrorRate()).isEqualTo(ScalableBloomFilter.MIN_LAYER_ERROR);
    assertThat(f.sizeInBytes()).isLessThan(1L << 20);
    for (int j = 0; j < i; j++) {
      assertThat(items.mightContain(f, j)).isTrue();
    }
  }

  @Test
  void create_badExpansion_throws() {
    assertThatThrownBy(() -> ScalableBloomFilter.create(100, 0.01, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expansion (0) must be in [1, 32768]");
    assertThatThrownBy(() -> ScalableBloomFilter.create(100, 0.01, 40000))
        .hasMessage("expansion (40000) must be in [1, 32768]");
  }

  @Test
  void layerSizing_matchesTheLayersItBuilds() {
    ScalableBloomFilter f = ScalableBloomFilter.create(1000, 0.001, 3);
    Items items = new Items(5);
    for (int i = 0; i < 5000; i++) {
      items.add(f, i);
    }
    for (int i = 0; i < f.layerCount(); i++) {
      BloomFilter.Sizing s = ScalableBloomFilter.layerSizing(1000, 0.001, 3, true, i);
      assertThat(f.layer(i).sizeInBytes()).isEqualTo(s.bytes());
      assertThat(f.layer(i).capacity()).isEqualTo(s.capacity());
    }
  }

  @Test
  void ofLayers_theLayersOfAFilter_givesTheSameFilter() throws Exception {
    ScalableBloomFilter f = ScalableBloomFilter.create(100, 0.01, 2);
    Items items = new Items(6);
    for (int i = 0; i < 500; i++) {
      items.add(f, i);
    }
    java.util.List<BloomFilter> layers = new java.util.ArrayList<>();
    for (int i = 0; i < f.layerCount(); i++) {
      BloomFilter l = f.layer(i);
      BloomFilter copy =
          BloomFilter.ofShape(
              l.capacity(),
              l.configuredErrorRate(),
              l.hashes(),
              l.blocks(),
              l.itemCount(),
              BloomFilter.Storage.ALIGNED);
      byte[] words = new byte[l.wordCount() * 8];
      l.copyWords(0, l.wordCount(), words, 0);
      copy.orWords(0, copy.wordCount(), words, 0);
      layers.add(copy);
    }
    ScalableBloomFilter g = ScalableBloomFilter.ofLayers(0.01, 100, 2, layers);
    assertThat(bytes(g)).isEqualTo(bytes(f));
    // It keeps growing as the original would.
    for (int i = 500; i < 1000; i++) {
      assertThat(items.add(g, i)).isEqualTo(items.add(f, i));
    }
    assertThat(bytes(g)).isEqualTo(bytes(f));
  }

  @Test
  void ofLayers_nonScaling_isOneLayerThatRefusesToGrow() {
    ScalableBloomFilter g =
        ScalableBloomFilter.ofLayers(0.01, 10, 0, java.util.List.of(BloomFilter.create(10, 0.01)));
    assertThat(g.isScaling()).isFalse();
    Items items = new Items(8);
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < 100; i++) {
                items.add(g, i);
              }
            })
        .isInstanceOf(FilterFullException.class);
  }

  @Test
  void ofLayers_badArguments_throw() {
    BloomFilter l = BloomFilter.create(10, 0.01);
    assertThatThrownBy(() -> ScalableBloomFilter.ofLayers(0.01, 10, 0, java.util.List.of(l, l)))
        .hasMessage("a non-scaling filter has one layer, not 2");
    assertThatThrownBy(() -> ScalableBloomFilter.ofLayers(0.01, 10, 2, java.util.List.of()))
        .hasMessage("layers (0) must be in [1, 1000]");
    assertThatThrownBy(() -> ScalableBloomFilter.ofLayers(0.01, 10, -1, java.util.List.of(l)))
        .hasMessage("expansion (-1) must be in [0, 32768]");
    assertThatThrownBy(() -> ScalableBloomFilter.ofLayers(1.5, 10, 2, java.util.List.of(l)))
        .hasMessage("error rate (1.5) must be in (0, 1)");
    assertThatThrownBy(() -> ScalableBloomFilter.ofLayers(0.01, 0, 2, java.util.List.of(l)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("initial capacity (0) must be in [1, 2^62]");
  }

  private static byte[] bytes(MembershipFilter f) throws java.io.IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }

  @Property(seed = "42", tries = 30)
  void mightContainAll_equalsOneAtATime_acrossLayers(
      @ForAll @IntRange(min = 0, max = 3_000) int added,
      @ForAll @IntRange(min = 0, max = 100) int count) {
    ScalableBloomFilter f = ScalableBloomFilter.create(100, 0.2, 2); // a high rate: answers mixed
    Items items = new Items(5);
    for (int i = 0; i < added; i++) {
      items.add(f, i);
    }
    long[] h1 = new long[count];
    long[] h2 = new long[count];
    for (int i = 0; i < count; i++) {
      Hash128 h = items.item(i * 61L); // some added, some not
      h1[i] = h.h1();
      h2[i] = h.h2();
    }
    boolean[] out = new boolean[count + 3];
    java.util.Arrays.fill(out, true); // stale answers from an earlier call must not survive
    boolean[] scratch = new boolean[count];

    f.mightContainAll(h1, h2, count, out, scratch);

    for (int i = 0; i < count; i++) {
      assertThat(out[i])
          .as("item %s of %s layers", i, f.layerCount())
          .isEqualTo(f.mightContain(h1[i], h2[i]));
    }
    assertThatThrownBy(() -> f.mightContainAll(h1, h2, count + 1, out, scratch))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
