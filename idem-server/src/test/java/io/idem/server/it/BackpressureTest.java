package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.store.RocksStore;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A log that falls behind stops the server reading the clients whose replies wait for it. */
class BackpressureTest {

  @TempDir Path dir;

  /** Connection.MAX_UNWRITTEN: how far the log may fall behind before a client is not read. */
  private static final int MAX_UNWRITTEN = 4096;

  @Test
  @Timeout(120)
  void aLogThatFallsBehind_stopsReadingTheClient_untilItCatchesUp() throws Exception {
    int commands = 20_000;
    try (ServerHarness server = new ServerHarness(dir.resolve("data"));
        RespClient c = new RespClient(server.port())) {
      RocksStore store = server.server.store();
      long before = store.lastSeq();
      java.util.concurrent.atomic.AtomicReference<Throwable> failed =
          new java.util.concurrent.atomic.AtomicReference<>();
      Thread sender;
      try (AutoCloseable paused = store.pauseCommitter()) {
        // On a thread of its own: once the server stops reading, the socket's buffers fill.
        sender =
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        for (int i = 0; i < commands; i++) {
                          c.send("BF.ADD", "bf", "item-" + i);
                        }
                        c.flush();
                      } catch (IOException | RuntimeException e) {
                        failed.set(e);
                      }
                    });
        // Until the server has taken past the bound (however slowly the sender gets a core) ...
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (store.lastSeq() - before <= MAX_UNWRITTEN
            && System.nanoTime() < deadline
            && failed.get() == null) {
          Thread.sleep(20);
        }
        // ... and then all it will: the last change handed out stays put for a second.
        long last = -1;
        for (int still = 0; still < 4; ) {
          long now = store.lastSeq();
          still = now == last ? still + 1 : 0;
          last = now;
          Thread.sleep(250);
        }
        assertThat(failed.get()).isNull();
        long taken = last - before;
        // It read past the bound by at most what one read brought, never the whole pipeline.
        assertThat(taken).isGreaterThan(MAX_UNWRITTEN).isLessThan(commands / 2);
        assertThat(store.durableSeq()).isLessThanOrEqualTo(before);
      }
      sender.join();
      assertThat(failed.get()).isNull();
      long added = 0;
      for (int i = 0; i < commands; i++) {
        Object reply = c.read();
        assertThat(reply).as("reply %d", i).isIn(0L, 1L); // 0: a false positive of the filter
        added += (Long) reply;
      }
      assertThat(added).isGreaterThan(commands * 98L / 100);
      assertThat(c.call("BF.CARD", "bf")).isEqualTo(added);
    }
  }
}
