package io.idem.core.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Pending claims across the arena's chunks (1 MiB each): records of every size land whole in one
 * chunk, are found, released and listed in order, and a snapshot lays them out as one array.
 */
class PendingClaimsTest {

  private record Claim(long slice, byte[] id, byte[] owner) {}

  /** Claims of random sizes (ids up to the longest allowed) whose records fill three chunks. */
  private static List<Claim> claims(long seed) {
    Random r = new Random(seed);
    List<Claim> out = new ArrayList<>();
    long bytes = 0;
    while (bytes < 3L << 20) {
      byte[] id = new byte[r.nextInt(8) == 0 ? 1 + r.nextInt(DedupLimits.MAX_ID_BYTES) : 16];
      byte[] owner = new byte[r.nextInt(DedupLimits.MAX_OWNER_BYTES + 1)];
      r.nextBytes(id);
      r.nextBytes(owner);
      out.add(new Claim(r.nextInt(9), id, owner));
      bytes += 12 + id.length + owner.length;
    }
    return out;
  }

  private static long h1(byte[] id) {
    return new Hash128().hash(id).h1();
  }

  @Test
  void claimsAcrossChunksAreFoundWholeAndInOrder() {
    List<Claim> claims = claims(7);
    PendingClaims p = new PendingClaims();
    List<Integer> offsets = new ArrayList<>();
    for (Claim c : claims) {
      offsets.add(p.add(c.slice(), h1(c.id()), c.id(), c.owner()));
    }
    assertThat(offsets.getLast() >>> 20).as("the last record's chunk").isGreaterThanOrEqualTo(2);
    assertThat(p.count()).isEqualTo(claims.size());
    for (int i = 0; i < claims.size(); i++) {
      Claim c = claims.get(i);
      int off = p.find(h1(c.id()), c.id(), 0);
      assertThat(off).as("claim %d", i).isEqualTo(offsets.get(i));
      assertThat(p.slice(off)).isEqualTo(c.slice());
      assertThat(p.id(off)).isEqualTo(c.id());
      assertThat(p.owner(off)).isEqualTo(c.owner());
      assertThat(p.h1(off, new Hash128())).isEqualTo(h1(c.id()));
      assertThat(p.isReleased(off)).isFalse();
    }
    List<Integer> listed = new ArrayList<>();
    p.forEach(listed::add);
    assertThat(listed).isEqualTo(offsets);
  }

  @Test
  void aSnapshotIsTheRecordsInOneArrayAndReadsBack() throws IOException {
    List<Claim> claims = claims(11);
    PendingClaims p = new PendingClaims();
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    List<Integer> offsets = new ArrayList<>();
    for (int i = 0; i < claims.size(); i++) {
      Claim c = claims.get(i);
      offsets.add(p.add(c.slice(), h1(c.id()), c.id(), c.owner()));
      boolean released = i % 5 == 0;
      if (released) {
        p.release(offsets.getLast());
      }
      // The record as the format table in PendingClaims and DedupCodec lay it out.
      DataOutputStream e = new DataOutputStream(expected);
      e.writeLong(c.slice());
      e.writeShort(c.id().length);
      e.write(c.id());
      e.writeByte(c.owner().length);
      e.write(c.owner());
      e.writeByte(released ? 1 : 0);
    }
    assertThat(p.live()).isEqualTo(claims.size() - (claims.size() + 4) / 5);
    ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
    p.writeTo(new DataOutputStream(snapshot));
    byte[] bytes = snapshot.toByteArray();
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    assertThat(in.readInt()).isEqualTo(expected.size());
    assertThat(in.readAllBytes()).isEqualTo(expected.toByteArray());

    PendingClaims back = new PendingClaims();
    back.readFrom(new DataInputStream(new ByteArrayInputStream(bytes)), bytes.length, 3);
    int kept = 0;
    for (int i = 0; i < claims.size(); i++) {
      Claim c = claims.get(i);
      int off = back.find(h1(c.id()), c.id(), 0);
      boolean released = i % 5 == 0;
      if (c.slice() < 3 || released) {
        assertThat(off).as("claim %d: below the floor or released", i).isEqualTo(-1);
      } else {
        assertThat(off).as("claim %d", i).isNotNegative();
        assertThat(back.owner(off)).isEqualTo(c.owner());
      }
      if (c.slice() >= 3) {
        kept++;
        assertThat(back.releasedHere(h1(c.id()), c.id(), 0)).isEqualTo(released);
      }
    }
    assertThat(back.count()).isEqualTo(kept);
  }

  @Test
  void aRecordEndingAtAChunksEndStaysInIt() {
    PendingClaims p = new PendingClaims();
    int full = (1 << 20) / 36; // records of 36 bytes: 16-byte ids, 8-byte owners
    Random r = new Random(3);
    int off = -1;
    for (int i = 0; i < full - 1; i++) {
      byte[] id = new byte[16];
      r.nextBytes(id);
      off = p.add(1, h1(id), id, new byte[8]);
    }
    // The chunk has 36 + (2^20 mod 36) bytes left: one record of exactly that size fills it.
    int left = (1 << 20) - (full - 1) * 36;
    byte[] last = new byte[left - 12 - 8];
    r.nextBytes(last);
    int lastOff = p.add(1, h1(last), last, new byte[8]);
    assertThat(lastOff).isEqualTo((1 << 20) - left);
    assertThat(lastOff >>> 20).as("still the first chunk").isZero();
    byte[] next = new byte[16];
    r.nextBytes(next);
    assertThat(p.add(1, h1(next), next, new byte[8]))
        .as("the second chunk's start")
        .isEqualTo(1 << 20);
    assertThat(p.find(h1(last), last, 0)).isEqualTo(lastOff);
    assertThat(p.find(h1(next), next, 0)).isEqualTo(1 << 20);
    assertThat(p.bytes() - (2L << 20))
        .as("two full chunks and the index, 8 bytes a slot, at most four slots a claim")
        .isPositive()
        .isLessThanOrEqualTo(32L * p.count());
    List<Integer> listed = new ArrayList<>();
    p.forEach(listed::add);
    assertThat(listed).hasSize(full + 1).endsWith(off, lastOff, 1 << 20);
  }

  @Test
  void aSmallArenaStaysSmall() {
    PendingClaims p = new PendingClaims();
    p.add(1, h1(new byte[16]), new byte[16], new byte[8]);
    assertThat(p.bytes()).as("one claim: a 1 KiB first chunk and the index").isLessThan(2048);
  }
}
