package io.idem.server.engine;

import io.idem.core.hash.Hash128;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A key of the keyspace: its bytes and their 64-bit hash. Keys order by hash, then bytes, so SCAN's
 * cursor can be a number (the next hash to visit) that stays valid while keys come and go.
 */
public final class Key implements Comparable<Key> {

  private final byte[] bytes;
  private final long hash;

  public Key(byte[] bytes) {
    this.bytes = bytes;
    this.hash = new Hash128().hash(bytes).h1();
  }

  private Key(byte[] bytes, long hash) {
    this.bytes = bytes;
    this.hash = hash;
  }

  /** The first key in order with the given hash: where a SCAN cursor resumes. */
  static Key firstWithHash(long hash) {
    return new Key(new byte[0], hash);
  }

  public static Key of(String s) {
    return new Key(s.getBytes(StandardCharsets.UTF_8));
  }

  /** The key's bytes; callers must not change them. */
  public byte[] bytes() {
    return bytes;
  }

  public long hash() {
    return hash;
  }

  @Override
  public int compareTo(Key o) {
    int c = Long.compareUnsigned(hash, o.hash);
    return c != 0 ? c : Arrays.compareUnsigned(bytes, o.bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return (int) (hash ^ (hash >>> 32));
  }

  @Override
  public String toString() {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
