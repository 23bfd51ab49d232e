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
