package io.idem.server.commands.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.commands.queue.JobQueue.Job;
import io.idem.server.commands.queue.JobQueue.Spec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The queue's index and orders against a hash map and an ordered set, through growth and drain; the
 * index's scan through changes.
 */
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

  /**
   * A scan's cursor outlives resizes: jobs come and go between pages (the table growing and
   * shrinking under the cursor), yet a job there throughout that the filter keeps is visited once,
   * and no job twice.
   */
  @Test
  void scan_whileJobsComeAndGo_visitsEachJobThereThroughoutOnce() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom r = new SplittableRandom(seed);
      JobIndex index = new JobIndex();
      List<Job> live = new ArrayList<>();
      long seq = 1;
      for (int i = 0, n = r.nextInt(3000); i < n; i++) {
        Job j = job(seq++, r.nextBoolean(), 0);
        index.add(j);
        live.add(j);
      }
      Set<Job> throughout = new HashSet<>(live);
      Predicate<Job> keep = seed % 2 == 0 ? j -> true : j -> Math.floorMod(j.idHash(), 3) == 0;
      List<Job> seen = new ArrayList<>();
      long cursor = 0;
      do {
        int count = 1 + r.nextInt(50);
        List<Job> page = new ArrayList<>();
        long next = index.scan(cursor, count, 1 + r.nextInt(500), keep, page);
        for (Job j : page) {
          assertThat(keep.test(j)).isTrue();
          assertThat(JobIndex.scanOrder(j.idHash())).isGreaterThanOrEqualTo(cursor);
        }
        // Past COUNT only by jobs whose hashes equal the one that filled the page.
        for (int i = count; i < page.size(); i++) {
          assertThat(page.get(i).idHash()).isEqualTo(page.get(count - 1).idHash());
        }
        assertThat(next == 0 || next > cursor).as("the cursor goes on").isTrue();
        seen.addAll(page);
        cursor = next;
        for (int i = 0, n = r.nextInt(200); cursor != 0 && i < n; i++) {
          if (!live.isEmpty() && r.nextBoolean()) {
            Job gone = live.remove(r.nextInt(live.size()));
            index.remove(gone);
            throughout.remove(gone);
          } else {
            Job j = job(seq++, r.nextBoolean(), 0);
            index.add(j);
            live.add(j);
          }
        }
      } while (cursor != 0);
      assertThat(seen).as("seed %d", seed).doesNotHaveDuplicates();
      assertThat(seen).as("seed %d", seed).containsAll(throughout.stream().filter(keep).toList());
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
