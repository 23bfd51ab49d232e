package io.idem.core.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** An EXACT table's packed rows: how many a slice has, and what a row of records says. */
class ClaimRowsTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] claims(String... idsAndOwners) {
    int n = idsAndOwners.length / 2;
    byte[][] ids = new byte[n][];
    byte[][] owners = new byte[n][];
    for (int i = 0; i < n; i++) {
      ids[i] = b(idsAndOwners[2 * i]);
      owners[i] = b(idsAndOwners[2 * i + 1]);
    }
    return ClaimRows.claims(ids, owners);
  }

  private static byte[] row(byte[]... chunks) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] c : chunks) {
      out.writeBytes(c);
    }
    return out.toByteArray();
  }

  @Test
  void holderIn_theLastRecordOfTheIdWins() {
    byte[] r =
        row(
            claims("a", "p3:100", "ab", "p3:2", "c", "p3:1000", "e", ""),
            ClaimRows.release(b("a")),
            claims("a", "p1:7", "d", "p3:1000"),
            ClaimRows.release(b("ab")));
    assertThat(ClaimRows.holderIn(r, b("a"))).isEqualTo(b("p1:7"));
    assertThat(ClaimRows.holderIn(r, b("ab"))).isNull();
    assertThat(ClaimRows.holderIn(r, b("c"))).isEqualTo(b("p3:1000"));
    assertThat(ClaimRows.holderIn(r, b("d"))).isEqualTo(b("p3:1000"));
    assertThat(ClaimRows.holderIn(r, b("e"))).isEmpty();
    assertThat(ClaimRows.holderIn(r, b("x"))).isNull();
    assertThat(ClaimRows.holderIn(new byte[0], b("a"))).isNull();
  }

  @Test
  void claims_ownersSortedAndStoredAsWhatTheyDoNotShare() {
    byte[] chunk = claims("i1", "p3:1002", "i2", "p3:1001", "i3", "p4:5");
    // kind, n, three id lengths, the ids in owner order, shared, unshared, the unshared bytes
    assertThat(chunk)
        .isEqualTo(
            row(
                new byte[] {0, 0, 0, 0, 3, 0, 2, 0, 2, 0, 2},
                b("i2i1i3"),
                new byte[] {0, 6, 1, 7, 1, 3},
                b("p3:1001" + "2" + "4:5")));
  }

  @Test
  void holderIn_aRowThatIsNotARunOfChunks_isAClearError() {
    byte[] good = claims("id", "owner", "id2", "owner2");
    java.util.List<byte[]> bad = new java.util.ArrayList<>();
    for (int cut = 1; cut < good.length; cut++) {
      bad.add(Arrays.copyOf(good, cut));
    }
    bad.add(new byte[] {2, 0, 0, 0, 0}); // an unknown kind
    bad.add(new byte[] {0, 0, 0, 0, 1, 0x04, 0x01}); // an id longer than any
    byte[] sharesTooMuch = good.clone();
    sharesTooMuch[5 + 4 + 5] = 1; // the first owner shares a byte with none
    bad.add(sharesTooMuch);
    for (byte[] r : bad) {
      assertThatThrownBy(() -> ClaimRows.holderIn(r, b("id2")))
          .as(Arrays.toString(r))
          .isInstanceOf(CorruptRowsException.class)
          .hasMessage("the dedup table's rows in the store are corrupt");
    }
  }

  @Test
  void rowBucketBits_aboutSixtyFourClaimsARow() {
    long day = 86_400_000L;
    assertThat(ExactTable.rowBucketBits(new Params(Mode.EXACT, day, 8, 1000, 0.01, 0)))
        .isEqualTo(1); // 125 claims a slice: 2 rows
    assertThat(ExactTable.rowBucketBits(new Params(Mode.EXACT, day, 8, 512, 0.01, 0)))
        .isZero(); // 64 a slice: one row
    // 50 M claims in 8 slices: 6.25 M a slice, 2^17 rows of about 48.
    assertThat(ExactTable.rowBucketBits(new Params(Mode.EXACT, day, 8, 50_000_000, 0.01, 0)))
        .isEqualTo(17);
    assertThat(ExactTable.rowBucketBits(new Params(Mode.EXACT, day, 1, 1L << 40, 0.01, 0)))
        .isEqualTo(32);
  }
}
