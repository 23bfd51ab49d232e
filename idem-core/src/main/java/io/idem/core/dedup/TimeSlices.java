package io.idem.core.dedup;

import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.filter.MembershipFilter;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A table's time cut into slices of {@code window / slices}: which slice an event time lands in,
 * which slices are live, and what each live one holds.
 *
 * <p>An id is claimed into the slice of its event time, clamped into [now - window, now]: a time in
 * the future counts as now, one older than the window as the window's start. The slice holding
 * {@code now - window} and every later one are live; older slices are dropped whole, never scanned.
 * So a claim is remembered for at least the window after its (clamped) event time, and at most one
 * slice longer.
 */
public final class TimeSlices {

  /** Bytes a live slice takes beside its filter: its entry in the live map. */
  static final long ENTRY_BYTES = 48;

  /**
   * One live slice: its filter (none in RECENT mode), the claims it holds and the duplicates found
   * in it.
   */
  public static final class Slice {
    private final @Nullable MembershipFilter filter;
    long items;

    /**
     * Claims answered duplicate because this slice held the id, since the table was loaded: counted
     * in memory only, never recorded, so no snapshot or log holds it.
     */
    long duplicates;

    Slice(@Nullable MembershipFilter filter) {
      this.filter = filter;
    }

    /** A {@code ScalableBloomFilter} or a {@code CuckooFilter}; null in RECENT mode. */
    public @Nullable MembershipFilter filter() {
      return filter;
    }

    public long items() {
      return items;
    }

    public long duplicates() {
      return duplicates;
    }

    /** The slice's own resident bytes: its filter and its map entry (RECENT's slots are shared). */
    public long memoryBytes() {
      return ENTRY_BYTES + (filter == null ? 0 : filter.sizeInBytes());
    }
  }

  private final long windowMillis;
  private final long sliceMillis;

  /** The slice index that the table was created in; RECENT slots count from it. */
  private final long base;

  /** Live slices by index; a slice absent from the map is live and empty. */
  private final TreeMap<Long, Slice> live = new TreeMap<>();

  /**
   * The slice the last claim went to, and its index: claims arrive in about time order, so most
   * find their slice here, without a boxed key and a tree walk per claim. Cleared when slices drop.
   */
  private @Nullable Slice recent;

  private long recentIndex;

  /** The lowest slice index still live. */
  private long floor;

  TimeSlices(Params p, long createdSlice) {
    this.windowMillis = p.windowMillis();
    this.sliceMillis = p.windowMillis() / p.slices();
    this.base = createdSlice;
    this.floor = createdSlice;
  }

  /**
   * The most slices live at once: those a window spans, plus the one it starts in. Slices are
   * {@code window / slices} rounded down, so a window that does not divide evenly spans one more.
   */
  public static int maxLive(Params p) {
    long sliceMillis = p.windowMillis() / p.slices();
    return (int) Math.ceilDiv(p.windowMillis(), sliceMillis) + 1;
  }

  /** The slice a table made at {@code now} is created in (its first live slice). */
  public static long createdAt(Params p, long now) {
    return Math.max(0, Math.floorDiv(now - p.windowMillis(), p.windowMillis() / p.slices()));
  }

  public long sliceMillis() {
    return sliceMillis;
  }

  long sliceOf(long millis) {
    return Math.floorDiv(millis, sliceMillis);
  }

  /** Where the slice of this index starts, in millis; it ends one {@link #sliceMillis} later. */
  public long startOf(long index) {
    return index * sliceMillis;
  }

  /** The lowest slice still live at {@code now}: the one holding now - window. */
  long floorAt(long now) {
    return sliceOf(now - windowMillis);
  }

  public long floor() {
    return floor;
  }

  public long base() {
    return base;
  }

  /** Live slices holding claims, by index. */
  public NavigableMap<Long, Slice> live() {
    return live;
  }

  /** Where a claim at {@code eventMillis} lands at {@code now}: see the class comment. */
  long claimSlice(long eventMillis, long now) {
    long t = Math.min(Math.max(eventMillis, now - windowMillis), now);
    return Math.max(sliceOf(t), floor);
  }

  /** Whether slices fell out of the window by {@code now}. */
  boolean advanceDue(long now) {
    return floorAt(now) > floor;
  }

  /** Drops the slices below {@code to}. */
  void dropBelow(long to) {
    live.headMap(to).clear();
    recent = null;
    floor = Math.max(floor, to);
  }

  /** The live slice of this index, or null: the last claim's slice first, then the map. */
  @Nullable Slice find(long index) {
    return recent != null && recentIndex == index ? recent : live.get(index);
  }

  /** The slice of this index, made with {@code filter} if it holds nothing yet. */
  Slice findOrAdd(long index, java.util.function.Supplier<@Nullable MembershipFilter> filter) {
    Slice s = find(index);
    if (s == null) {
      s = new Slice(filter.get());
      live.put(index, s);
    }
    recent = s;
    recentIndex = index;
    return s;
  }

  /** Puts a slice read from a snapshot; false if the index is there already. */
  boolean restore(long index, @Nullable MembershipFilter filter, long items) {
    Slice s = new Slice(filter);
    s.items = items;
    return live.putIfAbsent(index, s) == null;
  }

  /** One claim fewer in the slice, if it is live. */
  void forget(long index) {
    Slice s = live.get(index);
    if (s != null) {
      s.items--;
    }
  }

  /** Whether a slice at or above {@code from} may hold the hash (its filter says so). */
  boolean mightHold(long h1, long h2, long from) {
    return holding(h1, h2, from) != null;
  }

  /** The oldest slice at or above {@code from} whose filter may hold the hash, or null. */
  @Nullable Slice holding(long h1, long h2, long from) {
    for (Slice s : live.tailMap(from, true).values()) {
      if (s.filter != null && s.filter.mightContain(h1, h2)) {
        return s;
      }
    }
    return null;
  }

  /**
   * A duplicate was found in the slice of this index: counted there if it is live. The last claim's
   * slice is looked at first, so a repeat of a recent claim costs no tree walk.
   */
  void caught(long index) {
    Slice s = find(index);
    if (s != null) {
      s.duplicates++;
    }
  }

  /** Claims held in live slices. */
  long items() {
    long n = 0;
    for (Slice s : live.values()) {
      n += s.items;
    }
    return n;
  }

  /** The slices' bytes: their filters and a map entry each. */
  long memoryBytes() {
    long n = 0;
    for (Slice s : live.values()) {
      n += s.memoryBytes();
    }
    return n;
  }
}
