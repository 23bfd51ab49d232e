package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.idem.server.store.FaultyStore;
import io.idem.server.store.StoreFaults.Step;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A log that stands still (RocksDB stops taking writes) is said in the log, and so is its moving.
 */
class LogBehindTest {

  @TempDir Path dir;

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final Logger server = (Logger) LoggerFactory.getLogger("io.idem.server.net.IdemServer");

  @BeforeEach
  void captureLogs() {
    logs.start();
    root.addAppender(logs);
    server.setLevel(ch.qos.logback.classic.Level.INFO); // the catching up is at INFO
  }

  @AfterEach
  void releaseLogs() {
    root.detachAppender(logs);
    server.setLevel(null);
  }

  private boolean logged(String part, int seconds) throws InterruptedException {
    for (int i = 0; i < seconds * 20; i++) {
      synchronized (logs.list) {
        if (logs.list.stream().anyMatch(e -> e.getFormattedMessage().contains(part))) {
          return true;
        }
      }
      Thread.sleep(50);
    }
    return false;
  }

  @Test
  void aStalledLog_isWarned_andItsMovingAgainTold() throws Exception {
    FaultyStore faults = new FaultyStore();
    try (ServerHarness h = new ServerHarness(dir.resolve("d"), faults)) {
      faults.arm(Step.COMMIT_WRITE, FaultyStore.Action.PAUSE); // the next group stalls
      List<Socket> clients = new ArrayList<>();
      try {
        for (int c = 0; c < 4; c++) {
          Socket s = new Socket();
          s.connect(new InetSocketAddress("127.0.0.1", h.port()), 5000);
          StringBuilder b = new StringBuilder();
          for (int i = 0; i < 4000; i++) {
            b.append("BF.ADD bf c").append(c).append('-').append(i).append("\r\n");
          }
          s.getOutputStream().write(b.toString().getBytes(StandardCharsets.US_ASCII));
          s.getOutputStream().flush();
          clients.add(s);
        }
        assertThat(faults.awaitFired(10)).isTrue();
        assertThat(logged("the log has not moved for 5 s", 10)).as("the warning").isTrue();
        faults.release();
        assertThat(logged("the log moves again", 10)).as("the news it moves").isTrue();
      } finally {
        faults.release();
        for (Socket s : clients) {
          s.close();
        }
      }
    }
  }
}
