package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An in-process server's life: start failures are one clear line and leave nothing held, close and
 * SHUTDOWN free the port and keep the data, and the limits a connection meets (AUTH, maxclients, a
 * protocol error, a long pipeline).
 */
class ServerStartTest {

  @TempDir Path tmp;

  /** A server on a free loopback port with its data in {@code dir}; settings as name, value. */
  private static IdemServer start(Path dir, String... settings) throws IdemServer.StartException {
    Config config = Config.defaults();
    config.set("port", "0");
    config.set("dir", dir.toString());
    for (int i = 0; i < settings.length; i += 2) {
      config.set(settings[i], settings[i + 1]);
    }
    return IdemServer.start(config);
  }

  private static void assertServes(IdemServer server) throws IOException {
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void start_portTaken_failsWithOneLineAndReleasesTheData() throws Exception {
    Path dir = tmp.resolve("data");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();

      assertThatThrownBy(() -> start(dir, "port", Integer.toString(port)))
          .isInstanceOf(IdemServer.StartException.class)
          .hasMessage("cannot listen on 127.0.0.1:" + port + ": Address already in use");
    }
    // The store was opened before the bind failed: it must have been closed again.
    try (IdemServer server = start(dir)) {
      assertServes(server);
    }
  }

  @Test
  void start_dirIsARegularFile_failsWithOneLine() throws Exception {
    Path file = Files.writeString(tmp.resolve("file"), "not a directory");

    assertThatThrownBy(() -> start(file))
        .isInstanceOf(IdemServer.StartException.class)
        .hasMessage(
            "cannot create the data directory " + file + ": " + file + " is not a directory");
    assertThat(Files.readString(file)).isEqualTo("not a directory");
  }

  @Test
  void start_dirUnderARegularFile_failsWithOneLine() throws Exception {
    // Not a directory without write permission: tests may run as root, whom permissions do not
    // stop.
    Path file = Files.writeString(tmp.resolve("file"), "not a directory");
    Path dir = file.resolve("data");

    assertThatThrownBy(() -> start(dir))
        .isInstanceOf(IdemServer.StartException.class)
        .hasMessage(
            "cannot create the data directory " + dir + ": a part of its path is not a directory");
  }

  @Test
  void start_tlsPortWithoutCertificate_failsWithOneLineAndHoldsNothing() throws Exception {
    Path dir = tmp.resolve("data");
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }

    assertThatThrownBy(() -> start(dir, "port", Integer.toString(port), "tls-port", "1"))
        .isInstanceOf(IdemServer.StartException.class)
        .hasMessage("tls-port needs tls-cert-file and tls-key-file");
    try (IdemServer server = start(dir, "port", Integer.toString(port))) {
      assertServes(server);
    }
  }

  @Test
  void start_secondServerOnTheSameDir_failsOnTheLockAndTheFirstGoesOn() throws Exception {
    Path dir = tmp.resolve("data");
    try (IdemServer first = start(dir)) {
      try (RespClient c = new RespClient(first.port())) {
        assertThat(c.call("BF.ADD", "bf", "before")).isEqualTo(1L);
      }

      assertThatThrownBy(() -> start(dir))
          .isInstanceOf(IdemServer.StartException.class)
          .hasMessage(
              "cannot open the data directory "
                  + dir
                  + ": it is in use by another Idem server ("
                  + dir.resolve("LOCK")
                  + " is locked)");

      try (RespClient c = new RespClient(first.port())) {
        assertThat(c.call("BF.ADD", "bf", "after")).isEqualTo(1L);
        assertThat(c.call("BF.MEXISTS", "bf", "before", "after")).isEqualTo(List.of(1L, 1L));
      }
    }
    try (IdemServer again = start(dir);
        RespClient c = new RespClient(again.port())) {
      assertThat(c.call("BF.MEXISTS", "bf", "before", "after")).isEqualTo(List.of(1L, 1L));
    }
  }

  @Test
  void start_dirOfAServerInAnotherProcess_failsOnTheLockAndThatOneGoesOn() throws Exception {
    Path dir = tmp.resolve("data");
    try (ServerProcess other = ServerProcess.start(dir)) {
      assertThatThrownBy(() -> start(dir))
          .isInstanceOf(IdemServer.StartException.class)
          .hasMessage(
              "cannot open the data directory "
                  + dir
                  + ": it is in use by another Idem server ("
                  + dir.resolve("LOCK")
                  + " is locked)");

      try (RespClient c = new RespClient(other.port())) {
        assertThat(c.call("PING")).isEqualTo("PONG");
      }
    }
  }

  @Test
  void close_freesThePortAndTheDataReopens() throws Exception {
    Path dir = tmp.resolve("data");
    int port;
    try (IdemServer server = start(dir);
        RespClient c = new RespClient(server.port())) {
      port = server.port();
      assertThat(c.call("CF.ADD", "cf", "kept")).isEqualTo(1L);
    }

    try (IdemServer again = start(dir, "port", Integer.toString(port));
        RespClient c = new RespClient(port)) {
      assertThat(again.port()).isEqualTo(port);
      assertThat(c.call("CF.EXISTS", "cf", "kept")).isEqualTo(1L);
    }
  }

  @Test
  void shutdownCommand_stopsTheServer_andARestartHoldsTheData() throws Exception {
    Path dir = tmp.resolve("data");
    try (IdemServer server = start(dir)) {
      int port = server.port();
      try (RespClient c = new RespClient(port)) {
        assertThat(c.call("BF.ADD", "bf", "kept")).isEqualTo(1L);
        // As from Redis: the replies before it, then no reply, only the close.
        c.send("PING");
        c.send("SHUTDOWN");
        c.flush();
        assertThat(c.read()).isEqualTo("PONG");
        assertThatThrownBy(c::read).isInstanceOf(EOFException.class);
      }
      awaitStop(server);
      assertThatThrownBy(() -> new RespClient(port)).isInstanceOf(ConnectException.class);
    }

    try (IdemServer again = start(dir);
        RespClient c = new RespClient(again.port())) {
      assertThat(c.call("BF.EXISTS", "bf", "kept")).isEqualTo(1L);
    }
  }

  /** Waits for the server to stop; the bound only keeps a broken stop from hanging the build. */
  private static void awaitStop(IdemServer server) throws InterruptedException {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread waiter =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    server.awaitStop();
                  } catch (InterruptedException e) {
                    failure.set(e);
                  }
                });
    waiter.join(Duration.ofMinutes(1));
    assertThat(waiter.isAlive()).as("server still running after SHUTDOWN").isFalse();
    assertThat(failure.get()).isNull();
  }

  @Test
  void requirepass_commandsBeforeAuthFail_andAuthOpensTheConnection() throws Exception {
    try (IdemServer server = start(tmp.resolve("data"), "requirepass", "s3cret");
        RespClient c = new RespClient(server.port())) {
      assertThat(c.call("PING")).isEqualTo(new RespClient.Err("NOAUTH Authentication required."));
      assertThat(c.call("BF.ADD", "bf", "a"))
          .isEqualTo(new RespClient.Err("NOAUTH Authentication required."));
      assertThat(c.call("AUTH", "wrong"))
          .isEqualTo(
              new RespClient.Err("WRONGPASS invalid username-password pair or user is disabled."));

      assertThat(c.call("AUTH", "s3cret")).isEqualTo("OK");
      assertThat(c.call("PING")).isEqualTo("PONG");
      // The refused BF.ADD changed nothing.
      assertThat(c.call("EXISTS", "bf")).isEqualTo(0L);
      assertThat(c.call("BF.ADD", "bf", "a")).isEqualTo(1L);
    }
  }

  @Test
  void clientKill_closesAnIdleVictim_servedByTheKillersOwnEventLoop() throws Exception {
    try (IdemServer server = start(tmp.resolve("data"))) {
      int loops = Runtime.getRuntime().availableProcessors(); // the server's event loops
      List<RespClient> clients = new java.util.ArrayList<>();
      try {
        // Channels take the loops in turn: the loops-th client after the victim shares its loop.
        for (int i = 0; i <= loops; i++) {
          clients.add(new RespClient(server.port()));
          assertThat(clients.getLast().call("PING")).isEqualTo("PONG");
        }
        RespClient victim = clients.getFirst();
        long id = (Long) victim.call("CLIENT", "ID");
        RespClient killer = clients.getLast();
        assertThat(killer.call("CLIENT", "KILL", "ID", Long.toString(id))).isEqualTo(1L);
        assertThat(victim.closedWithin(10_000)).as("the victim, silent, is closed").isTrue();
        assertThat(killer.call("PING")).isEqualTo("PONG");
      } finally {
        for (RespClient c : clients) {
          c.close();
        }
      }
    }
  }

  @Test
  void timeout_closesAnIdleClient_andKeepsOneThatTalks() throws Exception {
    try (IdemServer server = start(tmp.resolve("data"), "timeout", "2")) {
      try (RespClient idle = new RespClient(server.port());
          RespClient busy = new RespClient(server.port())) {
        assertThat(idle.call("PING")).isEqualTo("PONG");
        // The idle one is closed by the once-a-second check some time after 2 s of silence; the
        // busy one, sending a command every 100 ms, outlives it.
        int pings = 0;
        while (!idle.closedWithin(10)) {
          assertThat(busy.call("PING")).isEqualTo("PONG");
          assertThat(++pings).as("pings before the idle client was closed").isLessThan(1200);
          Thread.sleep(100);
        }
        assertThat(pings).isGreaterThan(0);
        assertThat(busy.call("PING")).isEqualTo("PONG");
      }
    }
  }

  @Test
  void maxclients_refusesTheConnectionOverTheLimit_andTheFirstGoesOn() throws Exception {
    try (IdemServer server = start(tmp.resolve("data"), "maxclients", "1")) {
      try (RespClient first = new RespClient(server.port())) {
        assertThat(first.call("PING")).isEqualTo("PONG"); // registered before the second arrives

        try (RespClient second = new RespClient(server.port())) {
          assertThat(second.read())
              .isEqualTo(new RespClient.Err("ERR max number of clients reached"));
          assertThatThrownBy(second::read).isInstanceOf(EOFException.class);
        }

        assertThat(first.call("PING")).isEqualTo("PONG");
      }
      // The first one's slot frees when the server sees it close, which happens asynchronously.
      assertThat(pingUntilAccepted(server.port())).isEqualTo("PONG");
    }
  }

  private static Object pingUntilAccepted(int port) throws IOException, InterruptedException {
    Object reply = null;
    for (int attempt = 0; attempt < 1000; attempt++) {
      try (RespClient c = new RespClient(port)) {
        reply = c.call("PING");
      }
      if (!(reply instanceof RespClient.Err)) {
        return reply;
      }
      Thread.sleep(10);
    }
    return reply;
  }

  @Test
  void protocolError_repliesAndClosesThatConnection_andTheServerGoesOn() throws Exception {
    try (IdemServer server = start(tmp.resolve("data"))) {
      try (RespClient c = new RespClient(server.port())) {
        c.sendRaw("*1\r\n$x\r\n".getBytes(StandardCharsets.US_ASCII));
        c.flush();

        assertThat(c.read())
            .isEqualTo(new RespClient.Err("ERR Protocol error: invalid bulk length"));
        assertThatThrownBy(c::read).isInstanceOf(EOFException.class);
      }
      assertServes(server);
    }
  }

  @Test
  void pipeline_tenThousandCommandsInOneWrite_repliesToEachInOrder() throws Exception {
    int n = 10_000;
    // ECHO replies carry their index; every tenth command is a write, whose reply waits for the
    // log, so the ECHO replies behind it must wait too.
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    for (int i = 0; i < n; i++) {
      String[] words =
          i % 10 == 0 ? new String[] {"BF.ADD", "bf", "same"} : new String[] {"ECHO", "e" + i};
      request.writeBytes(("*" + words.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      for (String w : words) {
        request.writeBytes(
            ("$" + w.length() + "\r\n" + w + "\r\n").getBytes(StandardCharsets.US_ASCII));
      }
    }
    try (IdemServer server = start(tmp.resolve("data"));
        RespClient c = new RespClient(server.port())) {
      // The write runs beside the reads, so neither side's socket buffer can stall the other.
      AtomicReference<IOException> writeFailure = new AtomicReference<>();
      Thread writer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      c.sendRaw(request.toByteArray());
                      c.flush();
                    } catch (IOException e) {
                      writeFailure.set(e);
                    }
                  });

      for (int i = 0; i < n; i++) {
        Object reply = c.read();
        if (i % 10 == 0) {
          assertThat(reply).as("reply %d", i).isEqualTo(i == 0 ? 1L : 0L);
        } else {
          assertThat(reply).as("reply %d", i).isInstanceOf(byte[].class);
          assertThat(new String((byte[]) reply, StandardCharsets.US_ASCII))
              .as("reply %d", i)
              .isEqualTo("e" + i);
        }
      }
      writer.join();
      assertThat(writeFailure.get()).isNull();
      assertThat(c.call("PING")).isEqualTo("PONG");
    }
  }

  @Test
  void close_whileAClientIsConnected_closesTheConnection() throws Exception {
    IdemServer server = start(tmp.resolve("data"));
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("PING")).isEqualTo("PONG");
      server.close();
      assertThatThrownBy(c::read).isInstanceOf(EOFException.class);
    } finally {
      server.close();
    }
  }
}
