package io.idem.core.filter;

import static io.idem.core.filter.BloomFilter.Storage.HEAP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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

  @Test
  void dump_chunkByChunk_loadsIntoTheFilterOfItsHeader_whichAnswersEveryItemAlike()
      throws BadDumpException {
    for (ScalableBloom f : both(100, true)) {
      long[] pair = new long[2];
      for (int i = 0; i < 1000; i++) {
        f.hash(item(i), pair);
        f.add(pair[0], pair[1]);
      }
      assertThat(f.layerCount()).isGreaterThan(1);
      ScalableBloom g = ScalableBloom.fromHeader(f.dumpHeader(), bytes -> true, HEAP);
      assertThat(g).hasSameClassAs(f);
      int chunks = 0;
      for (long it = 1; ; chunks++) {
        DumpChunk c = f.dumpChunk(it);
        if (c.isEnd()) {
          break;
        }
        g.loadChunk(c.next(), c.bytes());
        it = c.next();
      }
      assertThat(chunks).isEqualTo(f.layerCount()); // small layers: one chunk each
      assertThat(g.dumpHeader()).isEqualTo(f.dumpHeader());
      assertThat(g.itemCount()).isEqualTo(f.itemCount());
      assertThat(g.capacity()).isEqualTo(f.capacity());
      for (int i = 0; i < 5000; i++) {
        assertThat(g.mightContainItem(item(i))).isEqualTo(f.mightContainItem(item(i)));
      }
    }
  }

  @Test
  void loadChunk_badIteratorOrBadData_throwsBadDumpException_andChangesNothing()
      throws BadDumpException {
    for (ScalableBloom f : both(100, true)) {
      long[] pair = new long[2];
      for (int i = 0; i < 300; i++) {
        f.hash(item(i), pair);
        f.add(pair[0], pair[1]);
      }
      byte[] header = f.dumpHeader();
      ScalableBloom g = ScalableBloom.fromHeader(header, bytes -> true, HEAP);
      DumpChunk first = f.dumpChunk(1);
      byte[] longer = Arrays.copyOf(first.bytes(), first.bytes().length + 8);
      assertThatThrownBy(() -> g.loadChunk(0, first.bytes())).isInstanceOf(BadDumpException.class);
      assertThatThrownBy(() -> g.loadChunk(first.next() + (1L << 40), first.bytes()))
          .isInstanceOf(BadDumpException.class);
      assertThatThrownBy(() -> g.loadChunk(1 + longer.length, longer))
          .isInstanceOf(BadDumpException.class);
      assertThat(g.mightContainItem(item(0))).as("no bits were written").isFalse();
      assertThatThrownBy(() -> ScalableBloom.fromHeader(new byte[3], bytes -> true, HEAP))
          .isInstanceOfSatisfying(
              BadDumpException.class, e -> assertThat(e.reply()).isEqualTo("received bad data"));
      assertThatThrownBy(
              () ->
                  ScalableBloom.fromHeader(
                      Arrays.copyOf(header, header.length - 1), b -> true, HEAP))
          .isInstanceOfSatisfying(
              BadDumpException.class, e -> assertThat(e.reply()).isEqualTo("received bad data"));
      assertThatThrownBy(() -> ScalableBloom.fromHeader(header, bytes -> false, HEAP))
          .isInstanceOfSatisfying(
              BadDumpException.class,
              e -> assertThat(e.reply()).isEqualTo("Insufficient memory to create filter"));
    }
  }

  @Test
  void dumpChunk_iteratorNotAtAChunk_idemsLayoutThrows_redisBloomsAnswersFromThere()
      throws BadDumpException {
    List<ScalableBloom> layouts = both(100, true);
    assertThat(layouts.get(0).dumpChunk(9).next()).isEqualTo(9 + 144 - 8);
    assertThatThrownBy(() -> layouts.get(1).dumpChunk(9))
        .isInstanceOfSatisfying(
            BadDumpException.class,
            e -> {
              assertThat(e.reply()).isEqualTo("invalid iterator");
              assertThat(e).hasMessage("iterator 9 is not one BF.SCANDUMP returned");
            });
  }

  @Test
  void describeLayer_isBfDebugsLine_inEachLayoutsTerms() {
    List<ScalableBloom> layouts = both(100, true);
    assertThat(layouts.get(0).layoutName()).isEqualTo("classic");
    assertThat(layouts.get(1).layoutName()).isEqualTo("blocked");
    // RedisBloom's own line for the filter BF.ADD makes with its defaults.
    assertThat(layouts.get(0).describeLayer(0))
        .isEqualTo("bytes:144 bits:1152 hashes:8 hashwidth:64 capacity:100 size:0 ratio:0.005");
    assertThat(layouts.get(1).describeLayer(0))
        .matches("bytes:\\d+ bits:\\d+ hashes:\\d+ hashwidth:128 capacity:100 size:0 ratio:0.005");
  }
}
