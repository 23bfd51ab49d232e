package io.idem.cli;

import io.idem.core.filter.MembershipFilter;

/** What {@code idem uniq} remembers lines in: a 128-bit hash goes in, "was it new?" comes out. */
interface SeenSet extends AutoCloseable {
  /** Adds the hash; true if the line is to be printed (it was, or may be, new). */
  boolean add(long h1, long h2);

  /** Memory held by the structure's tables. */
  long sizeInBytes();

  /** Frees memory held outside the Java heap, if any. */
  @Override
  default void close() {}

  /** Wraps a filter whose {@code add} is true for a (certainly or possibly) new item. */
  static SeenSet of(MembershipFilter filter) {
    return new SeenSet() {
      @Override
      public boolean add(long h1, long h2) {
        return filter.add(h1, h2);
      }

      @Override
      public long sizeInBytes() {
        return filter.sizeInBytes();
      }
    };
  }
}
