package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The leak check the codec tests rely on does see a leak. */
class NettyLeaksTest {

  @Test
  void collect_unreleasedBuffer_reported() {
    NettyLeaks.enable();
    NettyLeaks.collect(); // whatever earlier tests left
    // Keep this deliberate leak's report out of the build output.
    Logger logger = (Logger) LoggerFactory.getLogger(ResourceLeakDetector.class);
    logger.setAdditive(false);
    try {
      leakOne();
      List<String> reports = List.of();
      for (int attempt = 0; attempt < 20 && reports.isEmpty(); attempt++) {
        reports = NettyLeaks.collect();
      }
      assertThat(reports).anySatisfy(r -> assertThat(r).contains("LEAK"));
    } finally {
      logger.setAdditive(true);
    }
  }

  private static void leakOne() {
    ByteBuf leaked = ByteBufAllocator.DEFAULT.buffer(16);
    leaked.writeInt(42);
  }
}
