package io.idem.core.filter;

import io.idem.core.hash.Hash128;

/** Test items: item i of a stream is the hash of the long (seed << 40) + i. */
final class Items {
  private final long base;
  private final Hash128 hash = new Hash128();

  Items(long seed) {
    this.base = seed << 40;
  }

  Hash128 item(long i) {
    return hash.hashLong(base + i);
  }

  boolean add(MembershipFilter f, long i) {
    Hash128 h = item(i);
    return f.add(h.h1(), h.h2());
  }

  /** Inserts one more copy of item {@code i} (CF.ADD), present or not. */
  void insert(CuckooFilter f, long i) {
    Hash128 h = item(i);
    f.insert(h.h1(), h.h2());
  }

  /** Removes one copy of item {@code i}; true if something was removed. */
  boolean remove(MembershipFilter f, long i) {
    Hash128 h = item(i);
    return f.remove(h.h1(), h.h2());
  }

  boolean mightContain(MembershipFilter f, long i) {
    Hash128 h = item(i);
    return f.mightContain(h.h1(), h.h2());
  }

  /** False positives among {@code probes} items of this stream that were never added. */
  long falsePositives(MembershipFilter f, long from, long probes) {
    long n = 0;
    for (long i = from; i < from + probes; i++) {
      if (mightContain(f, i)) {
        n++;
      }
    }
    return n;
  }
}
