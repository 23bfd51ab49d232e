package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Job;
import java.util.function.Consumer;
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
