package io.idem.core.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.HashCode;
import com.google.common.hash.Hashing;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class Hash128Test {

  private static long[] guava(byte[] bytes, int offset, int length) {
    HashCode code = Hashing.murmur3_128().hashBytes(bytes, offset, length);
    ByteBuffer b = ByteBuffer.wrap(code.asBytes()).order(ByteOrder.LITTLE_ENDIAN);
    return new long[] {b.getLong(), b.getLong()};
  }

  @Test
  void hash_everyLengthUpTo100_matchesGuavaMurmur3() {
    SplittableRandom random = new SplittableRandom(7);
    Hash128 h = new Hash128();
    for (int length = 0; length <= 100; length++) {
      byte[] bytes = new byte[length + 5];
      random.nextBytes(bytes);
      long[] expected = guava(bytes, 3, length);
      h.hash(bytes, 3, length);
      assertThat(new long[] {h.h1(), h.h2()}).as("length %s", length).containsExactly(expected);
    }
  }

  @Property(seed = "42", tries = 500)
  void hash_randomBytes_matchesGuavaMurmur3(@ForAll @Size(max = 600) byte[] bytes) {
    Hash128 h = new Hash128().hash(bytes);
    assertThat(new long[] {h.h1(), h.h2()}).containsExactly(guava(bytes, 0, bytes.length));
  }

  @Property(seed = "42", tries = 200)
  void hashLong_equalsHashOfItsLittleEndianBytes(@ForAll long value) {
    byte[] bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    Hash128 a = new Hash128().hashLong(value);
    Hash128 b = new Hash128().hash(bytes);
    assertThat(a.h1()).isEqualTo(b.h1());
    assertThat(a.h2()).isEqualTo(b.h2());
  }

  @Property(seed = "42", tries = 300)
  void hashLongs_equalsHashLongOfEach(
      @ForAll @IntRange(max = 40) int count, @ForAll @IntRange(max = 5) int offset) {
    long[] values = new SplittableRandom(count * 31L + offset).longs(offset + count + 3).toArray();
    long[] h1 = new long[count + 2];
    long[] h2 = new long[count + 2];
    h1[count] = h2[count] = 77; // past count: must stay as it was

    Hash128.hashLongs(values, offset, count, h1, h2);

    Hash128 one = new Hash128();
    for (int i = 0; i < count; i++) {
      one.hashLong(values[offset + i]);
      assertThat(new long[] {h1[i], h2[i]})
          .as("key %s of %s", i, count)
          .containsExactly(one.h1(), one.h2());
    }
    assertThat(h1[count]).isEqualTo(77);
    assertThat(h2[count]).isEqualTo(77);
  }

  @Test
  void vectorHash_equalsHashLong_onEveryLane() {
    // VectorHash directly, so its answers are checked whether or not this CPU selects it.
    assertThat(ModuleLayer.boot().findModule("jdk.incubator.vector")).isPresent();
    SplittableRandom random = new SplittableRandom(2026);
    long[] values = new long[1024 + 1];
    for (int i = 0; i < values.length; i++) {
      values[i] = i % 5 == 0 ? i : random.nextLong(); // small values too: 0, 5, 10, ...
    }
    long[] h1 = new long[1024];
    long[] h2 = new long[1024];

    assertThat(VectorHash.hashLongs(values, 1, 1023, h1, h2)).isEqualTo(1016);

    Hash128 one = new Hash128();
    for (int i = 0; i < 1016; i++) {
      one.hashLong(values[1 + i]);
      assertThat(h1[i]).as("h1 of key %s", i).isEqualTo(one.h1());
      assertThat(h2[i]).as("h2 of key %s", i).isEqualTo(one.h2());
    }
    assertThat(h1[1016]).isZero(); // the tail is the caller's
    assertThat(h2[1016]).isZero();
  }

  @Property(seed = "42", tries = 500)
  void vectorFmixBoth_equalsScalar(@ForAll long a, @ForAll long b) {
    // Both paths directly: the tests against Guava take whichever this CPU selects.
    Hash128 vector = new Hash128();
    VectorHash.fmixBoth(a, b, vector);
    Hash128 scalar = new Hash128().fmixBoth(a, b);
    assertThat(new long[] {vector.h1(), vector.h2()}).containsExactly(scalar.h1(), scalar.h2());
  }

  @Property(seed = "42", tries = 500)
  void vectorFinishLong_equalsScalarAndGuava(@ForAll long value) {
    long k = Hash128.mixK1(value) ^ 8;
    Hash128 vector = new Hash128();
    VectorHash.finishLong(k, vector);
    Hash128 scalar = new Hash128().scalarFinishLong(k);
    byte[] bytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
    long[] expected = guava(bytes, 0, 8);
    assertThat(new long[] {vector.h1(), vector.h2()}).containsExactly(expected);
    assertThat(new long[] {scalar.h1(), scalar.h2()}).containsExactly(expected);
  }

  @Test
  void scalarHashLongs_equalsHashLong_fromAnyStart() {
    // The scalar path in full, whether or not this CPU takes the vector one in hashLongs.
    long[] values = new SplittableRandom(11).longs(40).toArray();
    long[] h1 = new long[37];
    long[] h2 = new long[37];

    Hash128.scalarHashLongs(values, 3, 5, 37, h1, h2);

    Hash128 one = new Hash128();
    for (int i = 0; i < 37; i++) {
      if (i < 5) {
        assertThat(h1[i]).as("key %s is before from", i).isZero();
        assertThat(h2[i]).isZero();
      } else {
        one.hashLong(values[3 + i]);
        assertThat(new long[] {h1[i], h2[i]}).as("key %s", i).containsExactly(one.h1(), one.h2());
      }
    }
  }

  @Test
  void hashLongs_outOfBounds_throwsAndWritesNothing() {
    long[] h1 = new long[8];
    long[] h2 = new long[7];
    assertThatThrownBy(() -> Hash128.hashLongs(new long[8], 0, 8, h1, h2))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Hash128.hashLongs(new long[8], 1, 8, h1, h1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Hash128.hashLongs(new long[8], 0, -1, h1, h1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Hash128.hashLongs(new long[8], -1, 2, h1, h1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> Hash128.hashLongs(new long[8], Integer.MAX_VALUE, 2, h1, h1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(h1).containsOnly(0L);
    assertThat(h2).containsOnly(0L);
  }

  @Test
  void hash_knownVectors_arePinned() {
    // Literals, so a change of function can never pass unnoticed: every stored structure
    // depends on it (and FUNCTION_ID names it).
    assertThat(new Hash128().hash("").toString()).isEqualTo(PINNED_EMPTY);
    assertThat(new Hash128().hash("idem").toString()).isEqualTo(PINNED_IDEM);
    assertThat(new Hash128().hashLong(42).toString()).isEqualTo(PINNED_LONG_42);
    assertThat(Hash128.FUNCTION_ID).isEqualTo(1);
  }

  // Murmur3 x64 128 of the empty input is zero in both halves; the others equal Guava's.
  static final String PINNED_EMPTY = "00000000000000000000000000000000";
  static final String PINNED_IDEM = "970e1cc453f76ff10df9235dcc6a686c";
  static final String PINNED_LONG_42 = "b6acc39989d27df824b917fb96f22f80";

  @Test
  void hash_sliceOutOfBounds_throws() {
    assertThatThrownBy(() -> new Hash128().hash(new byte[4], 2, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
