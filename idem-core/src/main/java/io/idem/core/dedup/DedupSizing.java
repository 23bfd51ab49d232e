package io.idem.core.dedup;

import io.idem.core.Durations;
import io.idem.core.dedup.DedupTable.Mode;
import io.idem.core.dedup.DedupTable.Params;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * What a dedup table costs, for {@code idem size}: the limits, defaults and sizing DEDUP.RESERVE
 * and the table use, so that what is shown is what a table allocates. Texts are the server's error
 * replies without their {@code ERR} code.
 */
public final class DedupSizing {

  public static final int DEFAULT_SLICES = DedupLimits.DEFAULT_SLICES;
  public static final int MAX_SLICES = DedupLimits.MAX_SLICES;
  public static final long MAX_CAPACITY = DedupLimits.MAX_CAPACITY;
  public static final long MAX_SLOTS = DedupLimits.MAX_SLOTS;

  /** The error rate of an exact table's in-memory index. */
  public static final double EXACT_INDEX_ERROR = SliceFilters.EXACT_INDEX_ERROR;

  /** Bytes a RECENT slot takes: the table's own figure for one slot. */
  public static final long RECENT_SLOT_BYTES =
      DedupTable.initialBytes(recent(DedupLimits.MIN_WINDOW_MILLIS, 1, 1));

  private DedupSizing() {}

  /**
   * A window as DEDUP.RESERVE reads it: plain seconds, or a whole number with ms, s, m, h or d.
   *
   * @throws IllegalArgumentException with the server's text if it would refuse it
   */
  public static long windowMillis(String text) {
    Long millis = Durations.millisOrNull(text.getBytes(StandardCharsets.ISO_8859_1));
    if (millis == null
        || millis < DedupLimits.MIN_WINDOW_MILLIS
        || millis > DedupLimits.MAX_WINDOW_MILLIS) {
      throw new IllegalArgumentException(DedupLimits.Problem.WINDOW.message());
    }
    return millis;
  }

  /** The slices DEDUP.RESERVE uses when SLICES is not given: 8, but none shorter than a second. */
  public static int defaultSlices(long windowMillis) {
    return (int) Math.min(DedupLimits.DEFAULT_SLICES, windowMillis / 1000);
  }

  /** An EXACT table sized for {@code capacity} claims per window (DEDUP.RESERVE's CAPACITY). */
  public static Params exact(long windowMillis, int slices, long capacity) {
    return new Params(Mode.EXACT, windowMillis, slices, capacity, EXACT_INDEX_ERROR, 0);
  }

  /** A FILTER table: {@code errorRate} while the window holds at most {@code capacity} claims. */
  public static Params filter(long windowMillis, int slices, long capacity, double errorRate) {
    return new Params(Mode.FILTER, windowMillis, slices, capacity, errorRate, 0);
  }

  /** A RECENT table of {@code slots} slots, with the capacity and rate DEDUP.RESERVE records. */
  public static Params recent(long windowMillis, int slices, long slots) {
    return new Params(
        Mode.RECENT, windowMillis, slices, DedupLimits.DEFAULT_CAPACITY, EXACT_INDEX_ERROR, slots);
  }

  /**
   * Why DEDUP.RESERVE would refuse these parameters, or null if it would make the table (memory
   * permitting: the server's memory limit is not known here).
   */
  public static @Nullable String check(Params p) {
    DedupLimits.Problem bad = DedupLimits.check(p);
    return bad == null ? null : bad.message();
  }

  /** The most slices live at once: the window's slices, plus the one it starts in. */
  public static int maxLiveSlices(Params p) {
    return TimeSlices.maxLive(p);
  }

  /** EXACT and FILTER: the claims a slice's filter is sized for. */
  public static long sliceCapacity(Params p) {
    return SliceFilters.sliceCapacity(p);
  }

  /** EXACT and FILTER: the error rate a slice's filter is made with. */
  public static double sliceErrorRate(Params p) {
    return SliceFilters.sliceErrorRate(p);
  }

  /**
   * EXACT and FILTER: the kind of a slice's filter, {@code bloom} or {@code cuckoo} (FILTER tables
   * take the smaller one).
   */
  public static String sliceFilter(Params p) {
    return SliceFilters.cuckoo(p) ? "cuckoo" : "bloom";
  }

  /** EXACT and FILTER: the bytes of a new slice's filter (Long.MAX_VALUE if no array holds it). */
  public static long sliceBytes(Params p) {
    return SliceFilters.firstBytes(p);
  }

  /**
   * The table's memory once every live slice holds its share of the capacity: EXACT's in-memory
   * index or FILTER's filters (a slice's filter adds layers past its share); RECENT's slots, all
   * allocated when the table is made. Parameters must pass {@link #check}.
   */
  public static long bytes(Params p) {
    if (p.mode() == Mode.RECENT) {
      return DedupTable.initialBytes(p);
    }
    return Math.multiplyExact(maxLiveSlices(p), sliceBytes(p));
  }
}
