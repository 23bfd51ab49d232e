package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Netty's leak detector at its paranoid level (every buffer tracked, as with
 * -Dio.netty.leakDetection.level=paranoid), with its reports captured so a test can assert there
 * were none. Leaks are found when a leaked buffer is garbage-collected, so {@link #assertNone} runs
 * the collector and allocates until the detector has looked.
 */
final class NettyLeaks {

  private static final ListAppender<ILoggingEvent> REPORTS = new ListAppender<>();

  static {
    ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.PARANOID);
    Logger logger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
    REPORTS.start();
    logger.addAppender(REPORTS);
  }

  private NettyLeaks() {}

  /** Turns paranoid detection on; call before the test allocates buffers. */
  static void enable() {
    // The static initializer did it; this method makes the dependency visible at the call site.
  }

  /** Fails with the detector's reports if any buffer was garbage-collected unreleased. */
  static void assertNone() {
    List<String> reports = collect();
    assertThat(reports).as("Netty leak reports").isEmpty();
  }

  /** Collects garbage, lets the detector poll, and returns and clears its reports. */
  static List<String> collect() {
    for (int round = 0; round < 5; round++) {
      System.gc();
      try {
        Thread.sleep(20); // lets the reference handler enqueue what the collector found
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      // The detector polls its queue of collected buffers when it tracks a new one.
      ByteBuf probe = ByteBufAllocator.DEFAULT.buffer(8);
      probe.release();
    }
    synchronized (REPORTS.list) {
      List<String> reports = REPORTS.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
      REPORTS.list.clear();
      return reports;
    }
  }
}
