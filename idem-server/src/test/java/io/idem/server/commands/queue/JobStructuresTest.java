package io.idem.server.commands.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.JobQueue.Spec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The queue's index and orders against a hash map and an ordered set, through growth and drain. */
class JobStructuresTest {

  private static Job job(long seq, boolean named, long due) {
    byte[] id = (named ? "id-" + seq : Long.toString(seq)).getBytes(StandardCharsets.US_ASCII);
    return new Job(seq, id, new byte[] {1, 2, 3}, (int) (seq % 3), due, Spec.DEFAULT);
  }

  @Test
  void theIndexFindsWhatAHashMapFinds_andTheHeapPollsWhatASortedSetPolls() {
    for (long seed = 1; seed <= 5; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      JobIndex index = new JobIndex();
      JobHeap heap = new JobHeap(JobHeap.Order.PRIORITY);
      Map<String, Job> byId = new HashMap<>();
      TreeSet<Job> sorted =
          new TreeSet<>(
              Comparator.<Job>comparingInt(j -> -j.priority)
                  .thenComparingLong(j -> j.due)
                  .thenComparingLong(j -> j.seq));
      long seq = 1;
      for (int round = 0; round < 4; round++) {
        int grow = 1 + r.nextInt(6000);
        for (int i = 0; i < grow; i++) {
          Job j = job(seq++, r.nextBoolean(), r.nextInt(100));
          index.add(j);
          heap.add(j);
          byId.put(new String(j.id(), StandardCharsets.US_ASCII), j);
          sorted.add(j);
        }
        // Drain most of it, by the first in order or by any id.
        while (byId.size() > r.nextInt(50)) {
          Job j;
          if (r.nextBoolean()) {
            j = heap.poll();
            assertThat(j).isSameAs(sorted.pollFirst());
          } else {
            List<Job> all = new ArrayList<>(sorted);
            j = all.get(r.nextInt(all.size()));
            heap.remove(j);
            sorted.remove(j);
            assertThat(heap.peek()).isSameAs(sorted.isEmpty() ? null : sorted.first());
          }
          assertThat(j.heapIndex).isEqualTo(-1);
          index.remove(j);
          byId.remove(new String(j.id(), StandardCharsets.US_ASCII));
          if (r.nextInt(8) == 0) {
            for (Map.Entry<String, Job> e : byId.entrySet()) {
              assertThat(index.get(e.getKey().getBytes(StandardCharsets.US_ASCII)))
                  .isSameAs(e.getValue());
            }
            assertThat(index.get(j.id())).isNull();
          }
        }
        assertThat(index.size()).isEqualTo(byId.size());
        assertThat(heap.size()).isEqualTo(sorted.size());
        long[] dueBy = {0};
        long now = r.nextInt(100);
        heap.forEachFirst(j -> j.priority == 2 && j.due <= now, j -> dueBy[0]++);
        assertThat(dueBy[0])
            .isEqualTo(sorted.stream().filter(j -> j.priority == 2 && j.due <= now).count());
      }
      // Drained, the arrays shrink back.
      while (!sorted.isEmpty()) {
        Job j = sorted.pollFirst();
        heap.remove(j);
        index.remove(j);
      }
      assertThat(index.bytes()).isLessThan(16 + 4L * 1024);
      assertThat(heap.bytes()).isLessThan(16 + 4L * 1024);
    }
  }

  @Test
  void aNumberedJobKeepsNoIdBytes_yetAnswersToItsId() {
    Job numbered = job(1234, false, 0);
    Job named = job(1234, true, 0);
    assertThat(numbered.id()).isEqualTo("1234".getBytes(StandardCharsets.US_ASCII));
    assertThat(numbered.idEquals("1234".getBytes(StandardCharsets.US_ASCII))).isTrue();
    assertThat(numbered.idEquals("01234".getBytes(StandardCharsets.US_ASCII))).isFalse();
    assertThat(numbered.idEquals("123".getBytes(StandardCharsets.US_ASCII))).isFalse();
    for (long seq : new long[] {1, 9, 10, 99, 100, 1234, 1_000_000_007L, Long.MAX_VALUE}) {
      byte[] decimal = Long.toString(seq).getBytes(StandardCharsets.US_ASCII);
      assertThat(job(seq, false, 0).idHash()).as("seq %d", seq).isEqualTo(Job.hash(decimal));
    }
    assertThat(named.idHash()).isEqualTo(Job.hash("id-1234".getBytes(StandardCharsets.US_ASCII)));
    assertThat(numbered.payload()).containsExactly(1, 2, 3);
    assertThat(named.payload()).containsExactly(1, 2, 3);
    assertThat(numbered.memory()).isLessThan(named.memory()); // no id bytes kept
  }
}
