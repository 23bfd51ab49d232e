package io.idem.server.commands.queue;

import io.idem.core.rate.Gcra;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * A group of a queue's jobs (a tenant, a customer): its ready jobs, its share of the reserves (its
 * weight), and its own limits. The queue serves its groups by stride scheduling: each group has a
 * pass that a lease moves on by {@link #STRIDE} over its weight, and the group with the least pass
 * goes next, so backlogged groups get leases in proportion to their weights, and one group's
 * million jobs delay another's one by at most a round. Jobs added without a group are in the
 * queue's default group, which takes its turn as any other.
 *
 * <p>Not thread-safe: the queue's caller holds the key's lock.
 */
final class JobGroup {

  /** A pass's step for weight 1: exact in integers for every weight up to {@link #MAX_WEIGHT}. */
  static final long STRIDE = 1L << 20;

  static final int MAX_WEIGHT = 1000;
  static final int MAX_NAME_BYTES = 256;

  /** How a group's rate or concurrency is set: as the queue's default for groups, its own, none. */
  static final byte INHERIT = 0;

  static final byte OWN = 1;
  static final byte NONE = 2;

  final byte[] name;

  /** Creation order: the order groups are listed and written in, and ties between passes. */
  final long seq;

  int weight = 1;
  boolean paused;
  byte rateMode = INHERIT;
  Gcra.@Nullable Quota rate;

  /** The rate's theoretical arrival time in ns, or -1: kept whichever quota applies. */
  long tat = -1;

  /** -1: the queue's default for groups; 0: none; n: at most n leased at once. */
  int concurrency = -1;

  final JobHeap ready = new JobHeap(JobHeap.Order.PRIORITY);

  /**
   * Its jobs leased now, and its jobs in any state: a group with none and no settings is dropped.
   */
  int leased;

  int jobs;
  long pass;

  /** Where the scheduler holds it: nowhere, among the eligible, or waiting for its rate. */
  byte where = NOWHERE;

  static final byte NOWHERE = 0;
  static final byte ELIGIBLE = 1;
  static final byte RATE_BLOCKED = 2;

  /** Its place in the heap that holds it, or -1. */
  int heapIndex = -1;

  /** While rate-blocked: when it may lease again (ms). */
  long blockedUntil;

  /** Whether it waits in the queue's drop order (empty, with no settings). */
  boolean idle;

  JobGroup(byte[] name, long seq) {
    this.name = name;
    this.seq = seq;
  }

  /** Whether it has no settings of its own: such a group is dropped once it has no jobs. */
  boolean plain() {
    return weight == 1 && !paused && rateMode == INHERIT && concurrency == -1;
  }

  /** The rate that applies to it, given the queue's default for groups; null: none. */
  Gcra.@Nullable Quota rate(Gcra.@Nullable Quota groupDefault) {
    return switch (rateMode) {
      case OWN -> rate;
      case NONE -> null;
      default -> groupDefault;
    };
  }

  /** Its concurrency limit, given the queue's default for groups; 0: none. */
  int concurrency(int groupDefault) {
    return concurrency < 0 ? groupDefault : concurrency;
  }

  String nameText() {
    return new String(name, java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * The earliest time (ms) a rate lets one more through, given its TAT: the TAT less the burst's
   * room plus one interval (GCRA's test for one request, solved for the time), rounded up.
   */
  static long allowedAt(Gcra.Quota q, long tatNanos) {
    if (tatNanos < 0) {
      return Long.MIN_VALUE;
    }
    Gcra.Quota m = perMillisecond(q);
    long ns = tatNanos - m.toleranceNanos() + m.emissionNanos();
    return Math.floorDiv(ns, 1_000_000L) + (Math.floorMod(ns, 1_000_000L) == 0 ? 0 : 1);
  }

  /**
   * The rate as a queue decides it. Its times are whole milliseconds, so within one no time passes
   * between two leases: a rate of more than one a millisecond gets room for a millisecond's worth
   * more (2000 a second: two in a millisecond), or it would lease one a millisecond whatever it
   * says. Over time the rate is the same.
   */
  static Gcra.Quota perMillisecond(Gcra.Quota q) {
    long emission = q.emissionNanos();
    if (emission >= 1_000_000L) {
      return q;
    }
    try {
      return new Gcra.Quota(q.maxBurst() + (999_999L / emission), q.count(), q.periodSeconds());
    } catch (IllegalArgumentException e) {
      return q; // a burst past the bounds: as given
    }
  }

  /** Groups in one order, as a binary heap in an array: each group knows its place. */
  static final class Heap {
    private final boolean byPass;
    private JobGroup[] heap = new JobGroup[4];
    private int size;

    /** By pass (the eligible), or by the time a rate lets it go (the rate-blocked). */
    Heap(boolean byPass) {
      this.byPass = byPass;
    }

    int size() {
      return size;
    }

    boolean isEmpty() {
      return size == 0;
    }

    @Nullable JobGroup peek() {
      return size == 0 ? null : heap[0];
    }

    void add(JobGroup g) {
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, size * 2);
      }
      heap[size] = g;
      g.heapIndex = size++;
      up(size - 1);
    }

    void remove(JobGroup g) {
      int i = g.heapIndex;
      if (i < 0 || i >= size || heap[i] != g) {
        throw new IllegalStateException("the group is not in this order");
      }
      g.heapIndex = -1;
      size--;
      if (i < size) {
        heap[i] = heap[size];
        heap[i].heapIndex = i;
        heap[size] = null;
        if (!up(i)) {
          down(i);
        }
      } else {
        heap[size] = null;
      }
    }

    private boolean up(int i) {
      JobGroup g = heap[i];
      int start = i;
      while (i > 0) {
        int parent = (i - 1) >>> 1;
        if (compare(g, heap[parent]) >= 0) {
          break;
        }
        heap[i] = heap[parent];
        heap[i].heapIndex = i;
        i = parent;
      }
      heap[i] = g;
      g.heapIndex = i;
      return i != start;
    }

    private void down(int i) {
      JobGroup g = heap[i];
      int half = size >>> 1;
      while (i < half) {
        int c = 2 * i + 1;
        if (c + 1 < size && compare(heap[c + 1], heap[c]) < 0) {
          c++;
        }
        if (compare(g, heap[c]) <= 0) {
          break;
        }
        heap[i] = heap[c];
        heap[i].heapIndex = i;
        i = c;
      }
      heap[i] = g;
      g.heapIndex = i;
    }

    private int compare(JobGroup a, JobGroup b) {
      int c = byPass ? Long.compare(a.pass, b.pass) : Long.compare(a.blockedUntil, b.blockedUntil);
      return c != 0 ? c : Long.compare(a.seq, b.seq);
    }
  }
}
