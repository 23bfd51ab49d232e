package io.idem.bench.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadTest {
  @Test
  void generate_duplicatesAreLaterDeliveriesOfOneEarlierId_withNewOwnerSameTime() {
    Workload w = Workload.generate(42, 100_000, 0.01, 1_700_000_040_000L, 60_000);
    assertThat(w.duplicates).isEqualTo(1000);
    Map<String, Integer> firstSeen = new HashMap<>();
    int dup = 0;
    long[] lastOffset = new long[Workload.PARTITIONS];
    for (int i = 0; i < w.size; i++) {
      String id = w.idHi[i] + "/" + w.idLo[i];
      Integer first = firstSeen.putIfAbsent(id, i);
      if (first != null) {
        assertThat(w.duplicatePositions[dup]).isEqualTo(i);
        assertThat(w.timeOffset[i]).isEqualTo(w.timeOffset[first]);
        assertThat(w.owner[i]).isNotEqualTo(w.owner[first]);
        assertThat(w.originalOwner[dup]).isEqualTo(w.owner[first]);
        dup++;
      }
      int partition = (int) (w.owner[i] >>> 48);
      long offset = w.owner[i] & ((1L << 48) - 1);
      assertThat(partition).isBetween(0, Workload.PARTITIONS - 1);
      assertThat(offset).isGreaterThan(lastOffset[partition]);
      lastOffset[partition] = offset;
      assertThat(w.timeOffset[i]).isBetween(0, 59_999);
    }
    assertThat(dup).isEqualTo(w.duplicates);
  }

  @Test
  void generate_sameSeed_sameMessages() {
    Workload a = Workload.generate(7, 10_000, 0.05, 0, 60_000);
    Workload b = Workload.generate(7, 10_000, 0.05, 0, 60_000);
    assertThat(a.idHi).isEqualTo(b.idHi);
    assertThat(a.idLo).isEqualTo(b.idLo);
    assertThat(a.owner).isEqualTo(b.owner);
    assertThat(a.timeOffset).isEqualTo(b.timeOffset);
    assertThat(a.duplicatePositions).isEqualTo(b.duplicatePositions);
  }

  @Test
  void duplicateCheck_reportsOfTheWorkloadsDuplicates_countExactly() throws Exception {
    Workload w = Workload.generate(3, 1000, 0.1, 0, 60_000);
    DuplicateCheck check = new DuplicateCheck(w);
    DuplicateCheck.Tally tally = check.tally();
    for (int d = 0; d < w.duplicates; d++) {
      int at = w.duplicatePositions[d];
      tally.report(bytes16(w.idHi[at], w.idLo[at]), bytes8(w.originalOwner[d]));
    }
    assertThat(check.total(java.util.List.of(tally)).found()).isEqualTo(100);
  }

  @Test
  void duplicateCheck_missingOrWrongReports_fail() throws Exception {
    Workload w = Workload.generate(3, 1000, 0.1, 0, 60_000);
    DuplicateCheck check = new DuplicateCheck(w);
    DuplicateCheck.Tally tally = check.tally();
    for (int d = 1; d < w.duplicates; d++) {
      int at = w.duplicatePositions[d];
      tally.report(bytes16(w.idHi[at], w.idLo[at]), bytes8(w.owner[at]));
    }
    assertThatThrownBy(() -> check.total(java.util.List.of(tally)))
        .hasMessage("found 99 duplicates; the workload has exactly 100");
    int at = w.duplicatePositions[1];
    assertThatThrownBy(() -> tally.report(bytes16(w.idHi[at], w.idLo[at]), bytes8(w.owner[at])))
        .hasMessageEndingWith(" twice");
    assertThatThrownBy(() -> tally.report(bytes16(1, 2), bytes8(3)))
        .hasMessage("reported id 00000000000000010000000000000002 as a duplicate; it is not one");
    int first = w.duplicatePositions[0];
    assertThatThrownBy(() -> tally.report(bytes16(w.idHi[first], w.idLo[first]), bytes8(7)))
        .hasMessageContaining("with owner 0000000000000007; its deliveries are owned by");
    assertThatThrownBy(() -> tally.report(new Resp.Int(1), bytes8(7)))
        .hasMessage("a duplicate's id is :1, not 16 bytes");
  }

  private static Resp bytes16(long hi, long lo) {
    return new Resp.Bulk(java.nio.ByteBuffer.allocate(16).putLong(hi).putLong(lo).array());
  }

  private static Resp bytes8(long v) {
    return new Resp.Bulk(java.nio.ByteBuffer.allocate(8).putLong(v).array());
  }
}
