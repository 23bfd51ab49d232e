package io.idem.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Feeds a reader random and mutated bytes. The contract under test: a reader either returns a
 * structure or throws IOException; never another exception, and never allocates much more than the
 * bytes it was given.
 */
public final class ReaderFuzz {
  /** A reader of one family, as a function of a stream. */
  public interface Reader {
    Object read(ByteArrayInputStream in) throws IOException;
  }

  /** The first step of an array read (1 MiB) and a little for the reader's own objects. */
  private static final long ALLOCATION_SLACK = 3L << 20;

  private ReaderFuzz() {}

  /** Runs the reader on {@code bytes}; returns null if it threw IOException, else the result. */
  public static Object readOrIOException(Reader reader, byte[] bytes) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    Object result;
    try {
      result = reader.read(new ByteArrayInputStream(bytes));
    } catch (IOException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      result = null;
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(allocated)
        .as("bytes allocated reading %s input bytes", bytes.length)
        .isLessThan(ALLOCATION_SLACK + 3L * bytes.length);
    return result;
  }

  /** A copy of {@code valid} with one of several mutations, chosen by {@code random}. */
  public static byte[] mutate(byte[] valid, SplittableRandom random) {
    byte[] b = valid.clone();
    switch (random.nextInt(5)) {
      case 0 -> b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
      case 1 -> b = Arrays.copyOf(b, random.nextInt(b.length));
      case 2 -> {
        b = Arrays.copyOf(b, b.length + 1 + random.nextInt(16));
        b[b.length - 1] = (byte) random.nextInt();
      }
      case 3 -> {
        // Overwrite a header or size field with a large value: the case that tempts allocation.
        int at = 8 + random.nextInt(Math.min(40, b.length - 8));
        for (int i = at; i < Math.min(b.length, at + 4); i++) {
          b[i] = (byte) 0x7f;
        }
      }
      default -> b[random.nextInt(b.length)] = (byte) random.nextInt();
    }
    return b;
  }
}
