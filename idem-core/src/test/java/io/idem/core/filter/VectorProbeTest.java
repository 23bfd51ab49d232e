package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The vector lookup against the scalar one. These tests call {@link VectorProbe} directly, so they
 * check its answers on any CPU (without AVX-512 the vector API runs them in Java, slowly).
 */
class VectorProbeTest {

  @Test
  void build_addsTheVectorModule() {
    // The surefire argLine adds it, as ./idem serve does; without it the tests below cannot run.
    assertThat(ModuleLayer.boot().findModule("jdk.incubator.vector")).isPresent();
  }

  @Test
  void mightContain_randomBlocks_sameAnswerAsScalar_forEveryHashCount_onAndOffTheHeap() {
    SplittableRandom random = new SplittableRandom(2026);
    long[] words = new long[3 * BloomFilter.WORDS_PER_BLOCK];
    MemorySegment onHeap = MemorySegment.ofArray(words); // a view: sees every write to words
    MemorySegment offHeap = Arena.ofAuto().allocate(words.length * 8L, BloomFilter.BLOCK_BYTES);
    int[] answers = new int[2];
    for (int trial = 0; trial < 100_000; trial++) {
      int hashes = 1 + trial % BloomFilter.MAX_HASHES;
      int base = BloomFilter.WORDS_PER_BLOCK * random.nextInt(3);
      long h2 = random.nextLong();
      // Dense enough that about half the queries find all k bits: density^k near 1/2.
      fill(words, random, Math.pow(0.5, 1.0 / hashes));
      if (trial % 3 == 0) {
        setProbedBits(words, base, h2, hashes); // an item that was added: must be found
      }

      MemorySegment.copy(onHeap, 0, offHeap, 0, onHeap.byteSize());
      long offset = base * 8L;

      boolean scalar = BloomFilter.scalarMightContain(onHeap, offset, h2, hashes);
      assertThat(VectorProbe.mightContain(onHeap, offset, h2, hashes))
          .as("trial %s, k = %s, on the heap", trial, hashes)
          .isEqualTo(scalar);
      assertThat(VectorProbe.mightContain(offHeap, offset, h2, hashes))
          .as("trial %s, k = %s, off the heap", trial, hashes)
          .isEqualTo(scalar);
      assertThat(BloomFilter.scalarMightContain(offHeap, offset, h2, hashes))
          .as("trial %s, k = %s, scalar off the heap", trial, hashes)
          .isEqualTo(scalar);
      answers[scalar ? 1 : 0]++;
    }
    // Both answers are common, so a vector path stuck on either one would have failed above.
    assertThat(answers[0]).isGreaterThan(25_000);
    assertThat(answers[1]).isGreaterThan(25_000);
  }

  @Test
  void mightContain_oneClearBit_isAbsent_whicheverProbeReadsIt_andUnusedLanesDoNotCount() {
    SplittableRandom random = new SplittableRandom(7);
    long[] words = new long[BloomFilter.WORDS_PER_BLOCK];
    MemorySegment block = MemorySegment.ofArray(words);
    long[] probe = ProbeMultipliers.all();
    for (int hashes = 1; hashes <= BloomFilter.MAX_HASHES; hashes++) {
      long h2 = random.nextLong();
      for (int clear = 0; clear < hashes; clear++) {
        Arrays.fill(words, -1L);
        int bit = (int) ((h2 * probe[clear]) >>> 55);
        words[bit >>> 6] &= ~(1L << bit);

        assertThat(VectorProbe.mightContain(block, 0, h2, hashes))
            .as("k = %s, probe %s clear", hashes, clear)
            .isFalse();
      }
      Arrays.fill(words, -1L);
      assertThat(VectorProbe.mightContain(block, 0, h2, hashes)).isTrue();
      if (hashes < BloomFilter.MAX_HASHES) {
        // Lanes past the last probe must not count: clearing the bit the next probe would read
        // leaves the item present, unless one of its own probes reads that bit too.
        int unused = (int) ((h2 * probe[hashes]) >>> 55);
        boolean shared = false;
        for (int i = 0; i < hashes; i++) {
          shared |= (int) ((h2 * probe[i]) >>> 55) == unused;
        }
        words[unused >>> 6] &= ~(1L << unused);
        assertThat(VectorProbe.mightContain(block, 0, h2, hashes))
            .as("k = %s, probe %s (unused) clear", hashes, hashes)
            .isEqualTo(!shared);
      }
    }
  }

  @Test
  void usesVector_scalar_no_auto_followsTheCpu() {
    assertThat(BloomFilter.usesVector("scalar")).isFalse();
    // With the module present, auto follows the CPU: vector where it has 512-bit vectors.
    assertThat(BloomFilter.usesVector("auto")).isEqualTo(VectorProbe.native512());
  }

  @Test
  void probeKind_withoutTheProperty_isWhatAutoGives() {
    assumeTrue(System.getProperty(BloomFilter.PROBE_PROPERTY) == null, "run without the property");
    assertThat(BloomFilter.probeModeError()).isNull();
    assertThat(BloomFilter.probeKind()).isEqualTo(VectorProbe.native512() ? "vector512" : "scalar");
  }

  @Test
  void probeModeError_unknownValue_isAClearMessage() {
    BloomFilter.probeKind(); // initialised before the property changes: other tests keep its path
    String before = System.getProperty(BloomFilter.PROBE_PROPERTY);
    System.setProperty(BloomFilter.PROBE_PROPERTY, "avx");
    try {
      assertThat(BloomFilter.probeModeError())
          .isEqualTo("system property idem.bloom.probe must be auto or scalar, not 'avx'");
      System.setProperty(BloomFilter.PROBE_PROPERTY, "scalar");
      assertThat(BloomFilter.probeModeError()).isNull();
    } finally {
      if (before == null) {
        System.clearProperty(BloomFilter.PROBE_PROPERTY);
      } else {
        System.setProperty(BloomFilter.PROBE_PROPERTY, before);
      }
    }
  }

  private static void fill(long[] words, SplittableRandom random, double density) {
    for (int i = 0; i < words.length; i++) {
      long w = 0;
      for (int b = 0; b < 64; b++) {
        if (random.nextDouble() < density) {
          w |= 1L << b;
        }
      }
      words[i] = w;
    }
  }

  private static void setProbedBits(long[] words, int base, long h2, int hashes) {
    long[] probe = ProbeMultipliers.all();
    for (int i = 0; i < hashes; i++) {
      int bit = (int) ((h2 * probe[i]) >>> 55);
      words[base + (bit >>> 6)] |= 1L << bit;
    }
  }
}
