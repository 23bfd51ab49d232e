package io.idem.core.filter;

import io.idem.core.format.FormatFamily;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Reading any filter back from its bytes, whatever its family. */
public final class MembershipFilters {
  private MembershipFilters() {}

  /**
   * Reads one filter of any family, of at most {@code maxBytes} bytes. The family is read from byte
   * 4 of the frame. If {@code in} does not support mark, it is wrapped in a small buffer that may
   * consume up to 8 bytes past the structure; pass a stream that supports mark to avoid that.
   */
  public static MembershipFilter readFrom(InputStream in, long maxBytes) throws IOException {
    InputStream peekable = in.markSupported() ? in : new BufferedInputStream(in, 8);
    peekable.mark(8);
    byte[] header = peekable.readNBytes(5);
    peekable.reset();
    if (header.length < 5) {
      throw new IOException("truncated structure: ended after " + header.length + " bytes");
    }
    FormatFamily family = FormatFamily.byId(header[4] & 0xff);
    if (family == null) {
      throw new IOException("unknown family id " + (header[4] & 0xff));
    }
    return switch (family) {
      case BLOOM -> BloomFilter.readFrom(peekable, maxBytes);
      case SCALABLE_BLOOM -> ScalableBloomFilter.readFrom(peekable, maxBytes);
      case CUCKOO -> CuckooFilter.readFrom(peekable, maxBytes);
      case RECENT_SET -> RecentSet.readFrom(peekable, maxBytes);
      case COUNT_MIN, HYPERLOGLOG, TOPK, TDIGEST, REDISBLOOM_CHAIN, REDISBLOOM_CUCKOO, SEEN_CACHE ->
          throw new IOException("a " + family + " structure is not a membership filter");
    };
  }
}
