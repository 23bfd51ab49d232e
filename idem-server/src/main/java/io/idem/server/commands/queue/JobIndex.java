package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Job;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A queue's jobs by id: open addressing over an array of the jobs themselves, compared by their
 * ids' bytes, where a hash map took a node and a key object a job. Linear probing with deletion by
 * shifting back, so no slot is ever a tombstone.
 */
final class JobIndex {

  private Job[] table = new Job[16];
  private int size;

  int size() {
    return size;
  }

  /** The job with this id, or null. */
  @Nullable Job get(byte[] id) {
    int mask = table.length - 1;
    for (int i = Job.hash(id) & mask; ; i = (i + 1) & mask) {
      Job j = table[i];
      if (j == null) {
        return null;
      }
      if (j.idEquals(id)) {
        return j;
      }
    }
  }

  /** Adds a job whose id no job here has. */
  void add(Job j) {
    if ((size + 1) * 4L > table.length * 3L) {
      resize(table.length * 2);
    }
    place(table, j);
    size++;
  }

  /** Removes this job (the same object), if it is here. */
  void remove(Job j) {
    int mask = table.length - 1;
    int i = j.idHash() & mask;
    while (table[i] != j) {
      if (table[i] == null) {
        return;
      }
      i = (i + 1) & mask;
    }
    table[i] = null;
    size--;
    // Shift back the jobs after it that probed past its slot, so every probe still finds them.
    for (int k = (i + 1) & mask; table[k] != null; k = (k + 1) & mask) {
      int home = table[k].idHash() & mask;
      boolean between = i <= k ? i < home && home <= k : i < home || home <= k;
      if (!between) {
        table[i] = table[k];
        table[k] = null;
        i = k;
      }
    }
    if (table.length > 64 && size * 8L < table.length) {
      resize(table.length / 2); // a drained queue gives its table back
    }
  }

  void forEach(Consumer<Job> visit) {
    for (Job j : table) {
      if (j != null) {
        visit.accept(j);
      }
    }
  }

  /** Past the last cursor of {@link #scan}: cursors are a job's {@link #scanOrder}, 32 bits. */
  static final long SCAN_END = 1L << 32;

  /**
   * Visits the jobs in scan order from {@code cursor} on, adding those {@code keep} accepts to
   * {@code out} until it holds {@code count} or {@code budget} slots were probed; answers the
   * cursor to go on from, 0 once the walk reached the end. It stops only between jobs of different
   * scan orders, so {@code out} may pass {@code count} only by jobs whose ids' hashes are equal.
   */
  long scan(long cursor, int count, int budget, Predicate<Job> keep, List<Job> out) {
    /*
     * Scan order is a job's id hash with its bits reversed, as Redis's SCAN cursor: a job's home
     * slot is its hash's low bits, so the jobs of one home slot are one range of scan orders at
     * every table size. The walk takes home slots in that order, and a cursor means the same after
     * a resize: the jobs visited are those ordered below it. So a job in the index from the first
     * call to the last is visited once, and no id is visited twice, whatever changed between calls.
     */
    int shift = 32 - Integer.numberOfTrailingZeros(table.length);
    int mask = table.length - 1;
    List<Job> home = new ArrayList<>();
    int probed = 0;
    for (long q = cursor >>> shift; q < table.length; q++) {
      int slot = Integer.reverse((int) q) >>> shift;
      home.clear();
      // Linear probing keeps a slot's jobs between it and the next empty slot.
      for (int i = slot; ; i = (i + 1) & mask) {
        probed++;
        Job j = table[i];
        if (j == null) {
          break;
        }
        int h = j.idHash();
        if ((h & mask) == slot && scanOrder(h) >= cursor) {
          home.add(j);
        }
      }
      home.sort(Comparator.comparingLong((Job j) -> scanOrder(j.idHash())));
      long filledAt = -1; // the scan order of the job that filled the page
      for (Job j : home) {
        long order = scanOrder(j.idHash());
        if (filledAt >= 0 && order != filledAt) {
          return order;
        }
        if (keep.test(j)) {
          out.add(j);
          if (filledAt < 0 && out.size() >= count) {
            filledAt = order;
          }
        }
      }
      long next = (q + 1) << shift;
      if (filledAt >= 0 || probed >= budget) {
        return next == SCAN_END ? 0 : next;
      }
    }
    return 0;
  }

  /** A job's place in {@link #scan}'s order, from its id's hash: the hash's bits reversed. */
  static long scanOrder(int idHash) {
    return Integer.toUnsignedLong(Integer.reverse(idHash));
  }

  /** Bytes of the table (the jobs are counted by the queue). */
  long bytes() {
    return 16 + 4L * table.length;
  }

  private void resize(int length) {
    Job[] next = new Job[length];
    for (Job j : table) {
      if (j != null) {
        place(next, j);
      }
    }
    table = next;
  }

  private static void place(Job[] t, Job j) {
    int mask = t.length - 1;
    int i = j.idHash() & mask;
    while (t[i] != null) {
      i = (i + 1) & mask;
    }
    t[i] = j;
  }
}
