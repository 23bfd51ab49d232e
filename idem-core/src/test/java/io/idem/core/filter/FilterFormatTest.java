package io.idem.core.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.format.Golden;
import io.idem.core.format.ReaderFuzz;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The binary formats of every filter family: golden bytes, round trips, and hostile input. */
class FilterFormatTest {

  /** One small, deterministic filter per family, its golden file, and its reader. */
  enum Family {
    BLOOM("bloom-v1.bin", () -> fill(BloomFilter.create(200, 0.01), 150)) {
      @Override
      MembershipFilter read(ByteArrayInputStream in, long max) throws IOException {
        return BloomFilter.readFrom(in, max);
      }
    },
    SCALABLE_BLOOM(
        "scalable-bloom-v1.bin", () -> fill(ScalableBloomFilter.create(50, 0.01, 2), 180)) {
      @Override
      MembershipFilter read(ByteArrayInputStream in, long max) throws IOException {
        return ScalableBloomFilter.readFrom(in, max);
      }
    },
    CUCKOO("cuckoo-v1.bin", () -> fill(CuckooFilter.create(100, 0.01, 2, 20, 1), 150)) {
      @Override
      MembershipFilter read(ByteArrayInputStream in, long max) throws IOException {
        return CuckooFilter.readFrom(in, max);
      }
    },
    RECENT_SET("recent-set-v1.bin", () -> fill(RecentSet.create(64), 40)) {
      @Override
      MembershipFilter read(ByteArrayInputStream in, long max) throws IOException {
        return RecentSet.readFrom(in, max);
      }
    };

    final String golden;
    final Supplier<MembershipFilter> sample;

    Family(String golden, Supplier<MembershipFilter> sample) {
      this.golden = golden;
      this.sample = sample;
    }

    abstract MembershipFilter read(ByteArrayInputStream in, long max) throws IOException;
  }

  static final int SAMPLE_SEED = 5;

  static MembershipFilter fill(MembershipFilter f, int n) {
    Items items = new Items(SAMPLE_SEED);
    for (int i = 0; i < n; i++) {
      items.add(f, i);
    }
    return f;
  }

  static byte[] bytes(MembershipFilter f) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      f.writeTo(out);
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return out.toByteArray();
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void writeTo_sample_matchesGoldenBytes(Family family) {
    Golden.assertMatches(family.golden, bytes(family.sample.get()));
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_goldenBytes_holdsTheSampleItems(Family family) throws IOException {
    MembershipFilter expected = family.sample.get();
    byte[] golden = Golden.read(family.golden);
    MembershipFilter read = family.read(new ByteArrayInputStream(golden), golden.length);
    assertThat(read.family()).isEqualTo(expected.family());
    assertThat(read.itemCount()).isEqualTo(expected.itemCount());
    assertThat(read.capacity()).isEqualTo(expected.capacity());
    assertThat(read.sizeInBytes()).isEqualTo(expected.sizeInBytes());
    Items items = new Items(SAMPLE_SEED);
    int held = 0;
    for (int i = 0; i < 200; i++) {
      if (items.mightContain(expected, i)) {
        held++;
        assertThat(items.mightContain(read, i)).as("item %s", i).isTrue();
      }
    }
    assertThat(held).isPositive();
    assertThat(bytes(read)).isEqualTo(golden);
    // The generic reader dispatches on the family byte.
    assertThat(MembershipFilters.readFrom(new ByteArrayInputStream(golden), golden.length).family())
        .isEqualTo(expected.family());
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_everyTruncation_throwsIOException(Family family) {
    byte[] valid = bytes(family.sample.get());
    for (int length = 0; length < valid.length; length++) {
      byte[] cut = Arrays.copyOf(valid, length);
      assertThatThrownBy(() -> family.read(new ByteArrayInputStream(cut), Long.MAX_VALUE))
          .as("truncated to %s of %s bytes", length, valid.length)
          .isInstanceOf(IOException.class)
          .hasMessageContaining("truncated");
    }
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_anySingleBitFlip_throwsIOException(Family family) {
    byte[] valid = bytes(family.sample.get());
    for (int bit = 0; bit < valid.length * 8; bit += 3) {
      byte[] flipped = valid.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThat(ReaderFuzz.readOrIOException(in -> family.read(in, Long.MAX_VALUE), flipped))
          .as("bit %s flipped", bit)
          .isNull();
    }
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_mutatedBytes_onlyIOExceptionAndBoundedAllocation(Family family) {
    byte[] valid = bytes(family.sample.get());
    SplittableRandom random = new SplittableRandom(17);
    for (int i = 0; i < 3000; i++) {
      ReaderFuzz.readOrIOException(
          in -> family.read(in, Long.MAX_VALUE), ReaderFuzz.mutate(valid, random));
      ReaderFuzz.readOrIOException(
          in -> MembershipFilters.readFrom(in, Long.MAX_VALUE), ReaderFuzz.mutate(valid, random));
    }
  }

  @Property(seed = "42", tries = 2000)
  void readFrom_randomBytes_onlyIOException(@ForAll @Size(max = 300) byte[] bytes) {
    for (Family family : Family.values()) {
      assertThat(ReaderFuzz.readOrIOException(in -> family.read(in, Long.MAX_VALUE), bytes))
          .isNull();
    }
    assertThat(ReaderFuzz.readOrIOException(in -> MembershipFilters.readFrom(in, 1 << 20), bytes))
        .isNull();
  }

  @Property(seed = "42", tries = 2000)
  void readFrom_validHeaderThenRandomBody_onlyIOException(
      @ForAll @Size(max = 300) byte[] body, @ForAll @IntRange(max = 3) int familyIndex) {
    // Random bytes rarely pass the magic; behind a valid header they reach every field check.
    Family family = Family.values()[familyIndex];
    byte[] valid = bytes(family.sample.get());
    byte[] input = Arrays.copyOf(valid, 8 + body.length);
    System.arraycopy(body, 0, input, 8, body.length);
    assertThat(ReaderFuzz.readOrIOException(in -> family.read(in, Long.MAX_VALUE), input)).isNull();
  }

  @Test
  void readFrom_recentSetClaimingMaxSlots_allocatesOnlyWhatArrives() {
    // A valid header and slot count for the largest set (16 GiB), then 2 MiB of zeros and the
    // end: the reader must fail on the truncation having allocated about what arrived.
    ByteBuffer header = ByteBuffer.allocate(16);
    header.put(Arrays.copyOf(bytes(RecentSet.create(1)), 8)).putLong(RecentSet.MAX_SLOTS);
    byte[] input = Arrays.copyOf(header.array(), 16 + (2 << 20));
    assertThatThrownBy(() -> RecentSet.readFrom(new ByteArrayInputStream(input), Long.MAX_VALUE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("truncated");
    assertThat(ReaderFuzz.readOrIOException(in -> RecentSet.readFrom(in, Long.MAX_VALUE), input))
        .isNull();
  }

  @Test
  void readFrom_cuckooClaimingAHugeTable_allocatesOnlyWhatArrives() {
    // Valid fields for 2^30 items in 16-bit fingerprints (about 3.7 GiB), then 2 MiB and the end.
    long buckets = CuckooFilter.sizingWithFingerprintBits(1L << 30, 16, 2, 20).buckets();
    ByteBuffer head = ByteBuffer.allocate(55);
    head.put(Arrays.copyOf(bytes(CuckooFilter.create(100, 0.01)), 8))
        .putLong(1L << 30) // capacity
        .putDouble(0.01) // error rate
        .put((byte) 16) // fingerprint bits
        .put((byte) 2) // bucket size
        .putShort((short) 20) // max iterations
        .putShort((short) 0) // expansion
        .put((byte) 1) // sub-tables
        .putLong(0) // items
        .putLong(0) // deletes
        .putLong(buckets);
    byte[] input = Arrays.copyOf(head.array(), 55 + (2 << 20));
    assertThatThrownBy(() -> CuckooFilter.readFrom(new ByteArrayInputStream(input), Long.MAX_VALUE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("truncated");
    assertThat(ReaderFuzz.readOrIOException(in -> CuckooFilter.readFrom(in, Long.MAX_VALUE), input))
        .isNull();
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_overTheSizeLimit_throwsIOExceptionBeforeReadingThePayload(Family family) {
    byte[] valid = bytes(family.sample.get());
    assertThatThrownBy(() -> family.read(new ByteArrayInputStream(valid), valid.length - 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("over the limit");
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_unknownVersion_saysSo(Family family) {
    byte[] valid = bytes(family.sample.get());
    valid[5] = 9;
    assertThatThrownBy(() -> family.read(new ByteArrayInputStream(valid), Long.MAX_VALUE))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("unsupported " + family.name() + " format version 9");
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_otherFamily_saysWhichFamilyWasFound(Family family) {
    Family other = Family.values()[(family.ordinal() + 1) % Family.values().length];
    byte[] valid = bytes(other.sample.get());
    assertThatThrownBy(() -> family.read(new ByteArrayInputStream(valid), Long.MAX_VALUE))
        .isInstanceOf(IOException.class)
        .hasMessage("expected a " + family.name() + " structure but found " + other.name());
  }

  @ParameterizedTest
  @EnumSource(Family.class)
  void readFrom_hugeDeclaredSizeAndNoPayload_allocatesLittle(Family family) {
    // A header that claims the largest table the format allows, followed by nothing.
    byte[] valid = bytes(family.sample.get());
    for (int at = 8; at < Math.min(valid.length - 8, 48); at++) {
      byte[] lying = Arrays.copyOf(valid, at + 8);
      Arrays.fill(lying, at, at + 8, (byte) 0x0f);
      ReaderFuzz.readOrIOException(in -> family.read(in, Long.MAX_VALUE), lying);
    }
  }
}
