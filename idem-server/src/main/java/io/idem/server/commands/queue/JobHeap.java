package io.idem.server.commands.queue;

import io.idem.server.commands.queue.JobQueue.Job;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One of a queue's orders of jobs, as a binary heap in an array: a reference a job, where an
 * ordered tree took a node object a job (docs/benchmarks/percore.md has the bytes). Each job
 * records its place ({@link Job#heapIndex}), so that removing it (an ack, an extend) costs a sift,
 * not a search; a job is in one heap at most, so one field serves all three.
 */
final class JobHeap {

  /** The orders the queue keeps, compared by a switch rather than through a comparator object. */
  enum Order {
    /** Due jobs: the highest priority first, then the earliest due, then the order added. */
    PRIORITY,
    /** Delayed jobs: by due time, then the order added. */
    DUE,
    /** Leased jobs: by lease end, then the order added. */
    LEASE_END
  }

  private static final Job[] EMPTY = new Job[0];

  private final Order order;
  private Job[] heap = EMPTY;
  private int size;

  JobHeap(Order order) {
    this.order = order;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** The first job in this order, or null. */
  @Nullable Job peek() {
    return size == 0 ? null : heap[0];
  }

  void add(Job j) {
    if (j.heapIndex >= 0) {
      throw new IllegalStateException("a job in two orders");
    }
    if (size == heap.length) {
      heap = Arrays.copyOf(heap, Math.max(16, size + (size >> 1)));
    }
    heap[size] = j;
    j.heapIndex = size;
    size++;
    up(size - 1);
  }

  /** Removes and returns the first job; the heap must not be empty. */
  Job poll() {
    Job first = heap[0];
    remove(first);
    return first;
  }

  /** Whether the job is in this heap. */
  boolean holds(Job j) {
    int i = j.heapIndex;
    return i >= 0 && i < size && heap[i] == j;
  }

  /** Removes the job, which must be in this heap. */
  void remove(Job j) {
    int i = j.heapIndex;
    if (i < 0 || i >= size || heap[i] != j) {
      throw new IllegalStateException("the job is not in this order");
    }
    j.heapIndex = -1;
    size--;
    if (i < size) {
      Job last = heap[size];
      heap[i] = last;
      last.heapIndex = i;
      heap[size] = null;
      if (!up(i)) {
        down(i);
      }
    } else {
      heap[size] = null;
    }
    if (heap.length > 64 && size < heap.length / 4) {
      heap = Arrays.copyOf(heap, heap.length / 2); // a drained queue gives its array back
    }
  }

  /**
   * Visits, in no order, every job for which {@code first} holds, given that it holds for a job
   * only if it holds for every job before it in this order (a prefix, as "due by now"): the walk
   * leaves a subtree at its first job that fails, so it costs about the jobs visited.
   */
  void forEachFirst(Predicate<Job> first, Consumer<Job> visit) {
    if (size == 0) {
      return;
    }
    int[] stack = new int[64];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      int i = stack[--top];
      Job j = heap[i];
      if (!first.test(j)) {
        continue;
      }
      visit.accept(j);
      for (int c = 2 * i + 1; c <= 2 * i + 2 && c < size; c++) {
        if (top == stack.length) {
          stack = Arrays.copyOf(stack, top * 2);
        }
        stack[top++] = c;
      }
    }
  }

  /** Bytes of the array (the jobs are counted by the queue). */
  long bytes() {
    return 16 + 4L * heap.length;
  }

  private boolean up(int i) {
    Job j = heap[i];
    int start = i;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      Job p = heap[parent];
      if (compare(j, p) >= 0) {
        break;
      }
      heap[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    heap[i] = j;
    j.heapIndex = i;
    return i != start;
  }

  private void down(int i) {
    Job j = heap[i];
    int half = size >>> 1;
    while (i < half) {
      int c = 2 * i + 1;
      Job child = heap[c];
      int r = c + 1;
      if (r < size && compare(heap[r], child) < 0) {
        c = r;
        child = heap[c];
      }
      if (compare(j, child) <= 0) {
        break;
      }
      heap[i] = child;
      child.heapIndex = i;
      i = c;
    }
    heap[i] = j;
    j.heapIndex = i;
  }

  private int compare(Job a, Job b) {
    int c =
        switch (order) {
          case PRIORITY -> {
            int p = Integer.compare(b.priority, a.priority);
            yield p != 0 ? p : Long.compare(a.due, b.due);
          }
          case DUE -> Long.compare(a.due, b.due);
          case LEASE_END -> Long.compare(a.leaseUntil, b.leaseUntil);
        };
    return c != 0 ? c : Long.compare(a.seq, b.seq);
  }
}
