package io.idem.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The slot map every node works out from the same settings. */
class ClusterTopologyTest {

  @Test
  void nodes_takeContiguousRuns_ofPartitions_andEverySlotHasOneNode() {
    for (int n = 1; n <= 7; n++) {
      for (int partitions : new int[] {n, n + 1, 16, 64, 16384}) {
        if (partitions < n) {
          continue;
        }
        StringBuilder members = new StringBuilder();
        for (int i = 0; i < n; i++) {
          members.append("n").append(i).append("=10.0.0.").append(i + 1).append(":6379 ");
        }
        ClusterTopology t = ClusterTopology.parse(members.toString(), "n0", partitions);
        int next = 0;
        for (int i = 0; i < n; i++) {
          int[] r = t.slotRange(i);
          assertThat(r[0]).isEqualTo(next);
          assertThat(r[1]).isGreaterThanOrEqualTo(r[0]);
          for (int slot = r[0]; slot <= r[1]; slot++) {
            assertThat(t.nodeOfSlot(slot)).isEqualTo(t.nodes().get(i));
            assertThat(t.servesSlot(slot)).isEqualTo(i == 0);
          }
          next = r[1] + 1;
        }
        assertThat(next).isEqualTo(Slots.COUNT);
      }
    }
  }

  @Test
  void ids_areFortyHexDigits_theSameForTheSameName() {
    ClusterTopology a = ClusterTopology.parse("x=h:1 y=h:2", "x", 2);
    ClusterTopology b = ClusterTopology.parse("x=h:1 y=h:2", "y", 2);
    assertThat(a.self().id()).matches("[0-9a-f]{40}").isEqualTo(b.nodes().get(0).id());
    assertThat(a.self().id()).isNotEqualTo(b.self().id());
  }

  @Test
  void badSettings_sayWhichAndWhy() {
    assertThatThrownBy(() -> ClusterTopology.parse("", "a", 4))
        .hasMessageContaining("cluster-nodes names no node");
    assertThatThrownBy(() -> ClusterTopology.parse("a=h:1", "", 4))
        .hasMessageContaining("cluster-node must name this node");
    assertThatThrownBy(() -> ClusterTopology.parse("a=h:1 a=h:2", "a", 4))
        .hasMessageContaining("'a=h:2' is named twice");
    assertThatThrownBy(() -> ClusterTopology.parse("a=h:1 b=h:1", "a", 4))
        .hasMessageContaining("'b=h:1' is named twice");
    assertThatThrownBy(() -> ClusterTopology.parse("a=h:70000", "a", 4))
        .hasMessageContaining("'a=h:70000' has no valid port");
    assertThatThrownBy(() -> ClusterTopology.parse("a=h:1 b=h:2 c=h:3", "a", 2))
        .hasMessageContaining("cluster-partitions (2) must be at least the nodes (3)");
    assertThatThrownBy(() -> ClusterTopology.parse("=h:1", "a", 2))
        .hasMessageContaining("is not name=host:port");
  }

  @Test
  void replicas_areTheNodesAfterThePrimary_wrappingAround() {
    String members = "a=h:1 b=h:2 c=h:3";
    ClusterTopology c = ClusterTopology.parse(members, "c", 6, 2);
    assertThat(c.servers(0)).extracting(ClusterTopology.Node::name).containsExactly("a", "b");
    assertThat(c.servers(2)).extracting(ClusterTopology.Node::name).containsExactly("c", "a");
    // c is the primary of the last third and a replica of the second; not of the first.
    assertThat(c.servesSlot(0)).isFalse();
    assertThat(c.servesSlot(c.slotRange(1)[0])).isTrue();
    assertThat(c.servesSlot(16383)).isTrue();
    assertThat(c.servesPartition(0)).isFalse();
    assertThat(c.servesPartition(2)).isTrue();
    assertThat(c.servesPartition(5)).isTrue();
    assertThat(c.nodeOfSlot(c.slotRange(1)[0]).name()).isEqualTo("b"); // MOVED names the primary
    ClusterTopology all = ClusterTopology.parse(members, "b", 6, 3);
    for (int slot = 0; slot < Slots.COUNT; slot += 97) {
      assertThat(all.servesSlot(slot)).isTrue();
    }
    assertThatThrownBy(() -> ClusterTopology.parse(members, "a", 6, 4))
        .hasMessageContaining("cluster-replicas (4) must be from 1 to the nodes (3)");
  }

  @Test
  void aFailedNode_handsItsRangeToItsFirstLiveReplica() {
    ClusterTopology c = ClusterTopology.parse("a=h:1 b=h:2 c=h:3", "a", 6, 2);
    int bFirst = c.slotRange(1)[0];
    assertThat(c.liveServers(1)).containsExactly(1, 2);
    assertThat(c.setLive(List.of("a", "c"))).isTrue();
    assertThat(c.setLive(List.of("a", "c"))).isFalse(); // the same view: no change
    assertThat(c.nodeOfSlot(bFirst).name()).isEqualTo("c"); // MOVED follows the failover
    assertThat(c.liveServers(1)).containsExactly(2);
    assertThat(c.liveServers(0)).containsExactly(0); // b, a's replica, is left out
    assertThat(c.anyRangeDown()).isFalse();
    c.setLive(List.of("a", "stranger"));
    assertThat(c.isLive(1)).isFalse();
    assertThat(c.acting(1)).isEqualTo(1); // b and c down: b's range stays with b, and is down
    assertThat(c.anyRangeDown()).isTrue();
    c.setLive(List.of("a", "b", "c"));
    assertThat(c.nodeOfSlot(bFirst).name()).isEqualTo("b"); // back to its primary
  }
}
