package io.idem.server.commands.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.command.CommandException;
import io.idem.server.commands.dedup.DedupTable.Mode;
import io.idem.server.commands.dedup.DedupTable.Params;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** An EXACT table's packed rows: how many a slice has, and what a row of records says. */
class DedupRowsTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void claim(ByteArrayOutputStream row, String id, String owner) {
    row.write(0);
    row.write(id.length());
    row.writeBytes(b(id));
    row.write(owner.length());
    row.writeBytes(b(owner));
  }

  private static void release(ByteArrayOutputStream row, String id) {
    row.write(0x80);
    row.write(id.length());
    row.writeBytes(b(id));
  }

  @Test
  void holderIn_theLastRecordOfTheIdWins() {
    ByteArrayOutputStream row = new ByteArrayOutputStream();
    claim(row, "a", "o1");
    claim(row, "ab", "o2");
    release(row, "a");
    claim(row, "c", "");
    claim(row, "a", "o3");
    release(row, "ab");
    byte[] r = row.toByteArray();
    assertThat(DedupTable.holderIn(r, b("a"))).isEqualTo(b("o3"));
    assertThat(DedupTable.holderIn(r, b("ab"))).isNull();
    assertThat(DedupTable.holderIn(r, b("c"))).isEmpty();
    assertThat(DedupTable.holderIn(r, b("d"))).isNull();
    assertThat(DedupTable.holderIn(new byte[0], b("a"))).isNull();
  }

  @Test
  void holderIn_aRowThatIsNotARunOfRecords_isAClearError() {
    ByteArrayOutputStream row = new ByteArrayOutputStream();
    claim(row, "id", "owner");
    byte[] good = row.toByteArray();
    byte[][] bad = {
      Arrays.copyOf(good, 1), // half a length
      Arrays.copyOf(good, 3), // the id cut
      Arrays.copyOf(good, 4), // no owner length
      Arrays.copyOf(good, good.length - 1), // the owner cut
      {0x04, 0x01, 'x'}, // an id longer than any
    };
    for (byte[] r : bad) {
      assertThatThrownBy(() -> DedupTable.holderIn(r, b("id")))
          .as(Arrays.toString(r))
          .isInstanceOf(CommandException.class)
          .hasMessage("ERR the dedup table's rows in the store are corrupt");
    }
  }

  @Test
  void rowBucketBits_aboutSixtyFourClaimsARow() {
    long day = 86_400_000L;
    assertThat(DedupTable.rowBucketBits(new Params(Mode.EXACT, day, 8, 1000, 0.01, 0)))
        .isEqualTo(1); // 125 claims a slice: 2 rows
    assertThat(DedupTable.rowBucketBits(new Params(Mode.EXACT, day, 8, 512, 0.01, 0)))
        .isZero(); // 64 a slice: one row
    // 50 M claims in 8 slices: 6.25 M a slice, 2^17 rows of about 48.
    assertThat(DedupTable.rowBucketBits(new Params(Mode.EXACT, day, 8, 50_000_000, 0.01, 0)))
        .isEqualTo(17);
    assertThat(DedupTable.rowBucketBits(new Params(Mode.EXACT, day, 1, 1L << 40, 0.01, 0)))
        .isEqualTo(32);
  }
}
