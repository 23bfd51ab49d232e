package io.idem.server.resp;

/**
 * Where a {@link RespDecoder} reports the bytes it holds for a request that has not fully arrived,
 * so that all connections' query buffers together can be bounded (Redis's maxmemory-clients).
 */
public interface QueryMemory {

  /** Counts nothing: a decoder alone, in tests. */
  QueryMemory NONE = bytes -> true;

  /**
   * The decoder now holds {@code bytes} for its unfinished request (0 once it is complete or
   * dropped); false if the connection must be refused for it.
   */
  boolean holding(long bytes);
}
