package io.idem.core.filter;

/**
 * One chunk of a filter's dump, as BF.SCANDUMP and CF.SCANDUMP reply it: the iterator to ask with
 * next, which LOADCHUNK later takes with these bytes, and the bytes in the layout's own format.
 * {@link #END} follows the last chunk.
 */
public record DumpChunk(long next, byte[] bytes) {

  /** Past the last chunk: iterator 0 and no bytes. */
  public static final DumpChunk END = new DumpChunk(0, new byte[0]);

  /** Whether this is the end of the dump (a chunk's next iterator is never 0). */
  public boolean isEnd() {
    return next == 0;
  }
}
