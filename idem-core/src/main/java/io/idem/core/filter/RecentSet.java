package io.idem.core.filter;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.atomic.LongAdder;

/**
 * "The opposite of a Bloom filter": N slots, each holding one item's full 128-bit digest. It never
 * says yes for an item it was not given (short of a 128-bit digest collision), and forgets an item
 * when a later one lands in its slot. Thread-safe; check-and-add is atomic.
 */
public final class RecentSet implements MembershipFilter {
  /*
   * Design: a direct-mapped table of digests (J. Hodges' "opposite of a Bloom filter", seed 002).
   * The item's h1 picks the slot by multiply-high; the slot stores (h1, h2). A digest of (0, 0)
   * marks an empty slot, so an item whose digest is (0, 0) is stored as (0, 1): the one extra
   * collision this adds is as likely as any other 128-bit collision.
   *
   * Forgetting: each later distinct item overwrites a given slot with probability 1/N, so an item
   * is still remembered after x further distinct items with probability (1 - 1/N)^x.
   * slotsToRemember inverts that. The seed's worked example solves 0.1 = (1 - 1/N)^3.6e6, which
   * is N for a 10% chance of still remembering the item an hour later (N = 1,563,461), while its
   * text asks for 90%; 90% needs N = 34,168,399 (see RecentSetTest).
   *
   * Atomicity: slots are guarded by a fixed array of lock stripes; check-and-add and
   * remove-if-equal each hold one stripe, so concurrent adds of one item yield exactly one true.
   */

  static final int FORMAT_VERSION = 1; // append-only; see FilterFormatTest

  /** The most slots a Java array of (h1, h2) pairs can hold. */
  public static final long MAX_SLOTS = (Integer.MAX_VALUE - 8) / 2;

  private static final int MAX_STRIPES = 1024;

  private final int slots;
  private final long[] digests; // slot i is digests[2i], digests[2i + 1]
  private final Object[] stripes;
  private final LongAdder occupied = new LongAdder();

  private RecentSet(int slots, long[] digests) {
    this.slots = slots;
    this.digests = digests;
    int n = Integer.highestOneBit((int) Math.min(MAX_STRIPES, Math.max(1, slots / 64)));
    this.stripes = new Object[n];
    for (int i = 0; i < n; i++) {
      stripes[i] = new Object();
    }
  }

  /** An empty set of {@code slots} slots (16 bytes each). */
  public static RecentSet create(long slots) {
    checkArgument(
        slots >= 1 && slots <= MAX_SLOTS, "slots (%s) must be in [1, %s]", slots, MAX_SLOTS);
    return new RecentSet((int) slots, new long[(int) slots * 2]);
  }

  /**
   * The probability that an item is still remembered after {@code after} further distinct items.
   */
  public static double rememberProbability(long slots, long after) {
    checkArgument(slots >= 1, "slots (%s) must be >= 1", slots);
    checkArgument(after >= 0, "after (%s) must be >= 0", after);
    return Math.exp(after * Math.log1p(-1.0 / slots));
  }

  /**
   * The fewest slots N for which an item is still remembered after {@code after} further distinct
   * items with probability at least {@code remember}: the least N with (1 - 1/N)^after >= remember.
   */
  public static long slotsToRemember(long after, double remember) {
    checkArgument(after >= 0, "after (%s) must be >= 0", after);
    checkArgument(
        remember > 0 && remember < 1, "remember probability (%s) must be in (0, 1)", remember);
    if (after == 0) {
      return 1;
    }
    // (1 - 1/N)^x >= p  <=>  1/N <= 1 - p^(1/x) = -expm1(ln(p) / x)
    double n = Math.ceil(1 / -Math.expm1(Math.log(remember) / after));
    if (n >= 0x1p62) {
      return Long.MAX_VALUE; // more than any set can have; callers compare with MAX_SLOTS
    }
    long slots = (long) Math.max(1, n);
    // Step off the floating-point boundary: the answer is exact, not within an ulp.
    while (slots > 1 && rememberProbability(slots - 1, after) >= remember) {
      slots--;
    }
    while (rememberProbability(slots, after) < remember) {
      slots++;
    }
    return slots;
  }

  /**
   * Atomic check-and-add: stores the item's digest in its slot unless that slot already holds it.
   *
   * @return true if the item was not remembered (it is now); false if it was
   */
  @Override
  public boolean add(long h1, long h2) {
    if (h1 == 0 && h2 == 0) {
      h2 = 1;
    }
    int slot = slot(h1);
    int i = slot * 2;
    synchronized (stripe(slot)) {
      long a = digests[i];
      long b = digests[i + 1];
      if (a == h1 && b == h2) {
        return false;
      }
      if (a == 0 && b == 0) {
        occupied.increment();
      }
      digests[i] = h1;
      digests[i + 1] = h2;
      return true;
    }
  }

  /** True only if the item's digest is in its slot: never a false positive short of a collision. */
  @Override
  public boolean mightContain(long h1, long h2) {
    if (h1 == 0 && h2 == 0) {
      h2 = 1;
    }
    int slot = slot(h1);
    synchronized (stripe(slot)) {
      return digests[slot * 2] == h1 && digests[slot * 2 + 1] == h2;
    }
  }

  /**
   * Remove-if-equal: forgets the item only if its slot still holds it (say, its processing failed),
   * never another item that replaced it.
   */
  @Override
  public boolean remove(long h1, long h2) {
    if (h1 == 0 && h2 == 0) {
      h2 = 1;
    }
    int slot = slot(h1);
    synchronized (stripe(slot)) {
      int i = slot * 2;
      if (digests[i] != h1 || digests[i + 1] != h2) {
        return false;
      }
      digests[i] = 0;
      digests[i + 1] = 0;
      occupied.decrement();
      return true;
    }
  }

  private int slot(long h1) {
    return (int) Math.unsignedMultiplyHigh(h1, slots);
  }

  private Object stripe(int slot) {
    return stripes[slot & (stripes.length - 1)];
  }

  @Override
  public boolean supports(Capability capability) {
    return capability == Capability.REMOVE;
  }

  /** The number of slots. */
  @Override
  public long capacity() {
    return slots;
  }

  /** Occupied slots. */
  @Override
  public long itemCount() {
    return occupied.sum();
  }

  @Override
  public long sizeInBytes() {
    return (long) digests.length * 8;
  }

  /** A false positive needs a 128-bit digest collision with the one digest in the slot. */
  @Override
  public double configuredErrorRate() {
    return 0x1.0p-128;
  }

  @Override
  public double estimatedFalsePositiveRate() {
    return itemCount() == 0 ? 0 : 0x1.0p-128;
  }

  @Override
  public FormatFamily family() {
    return FormatFamily.RECENT_SET;
  }

  /*
   * RecentSet format, version 1: the frame of FormatInput, family 4, with this body:
   *
   * offset  size       field
   * 0       8          slots N (1 .. 1073741819)
   * 8       16*N       slot i: h1 then h2 of the digest it holds; (0, 0) is empty
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.RECENT_SET, FORMAT_VERSION, Hash128.FUNCTION_ID);
    f.writeLong(slots);
    long[] pair = new long[2];
    for (int s = 0; s < slots; s++) {
      synchronized (stripe(s)) {
        pair[0] = digests[s * 2];
        pair[1] = digests[s * 2 + 1];
      }
      f.writeLongs(pair, 0, 2);
    }
    f.finish();
  }

  /** Reads a set written by {@link #writeTo}, of at most {@code maxBytes} bytes. */
  public static RecentSet readFrom(InputStream in, long maxBytes) throws IOException {
    FormatInput f =
        FormatInput.begin(
            in, FormatFamily.RECENT_SET, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    long slots = f.readLong();
    if (slots < 1 || slots > MAX_SLOTS) {
      throw FormatInput.invalid("recent set slots", slots, "must be in [1, " + MAX_SLOTS + "]");
    }
    long[] digests = f.readLongs(slots * 2, "recent set slots");
    f.finish();
    RecentSet set = new RecentSet((int) slots, digests);
    for (int s = 0; s < slots; s++) {
      long h1 = digests[s * 2];
      long h2 = digests[s * 2 + 1];
      if (h1 == 0 && h2 == 0) {
        continue;
      }
      if (set.slot(h1) != s) {
        throw new IOException(
            "recent set slot " + s + " holds a digest that belongs in slot " + set.slot(h1));
      }
      set.occupied.increment();
    }
    return set;
  }

  @Override
  public String toString() {
    return "RecentSet{slots=" + slots + ", occupied=" + itemCount() + "}";
  }
}
