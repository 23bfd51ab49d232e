package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.it.RespClient.Err;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every hostile input of issue 30 and more, one after another against one server process with a 512
 * MB heap: after each, the server answers, what was acknowledged before is still there, and its
 * resident memory stays bounded. Each attack's outcome and the server's memory after it are written
 * to target/hostile-run.md ({@code scripts/hostile-run.sh} runs this alone and prints it).
 */
class HostileRunTest {

  /** Resident memory the server may reach: its 512 MB heap and everything beside it. */
  private static final long RSS_BOUND_KB = 1536L * 1024;

  private static final Random RANDOM = new Random(30);

  @TempDir Path dir;

  private ServerProcess server;
  private final List<String> rows = new ArrayList<>();

  @Test
  void everyAttackLeavesTheServerUp_itsDataWhole_andItsMemoryBounded() throws Exception {
    Path data = dir.resolve("data");
    server = ServerProcess.start(data);
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.ADD", "canary", "acknowledged")).isEqualTo(1L);
      assertThat(c.call("DEDUP.RESERVE", "canary-d", "1h")).isEqualTo("OK");
      assertThat(c.call("DEDUP.CLAIM", "canary-d", "job-1", "worker-a")).isNotInstanceOf(Err.class);
    }
    record("(start)", "canary written");

    attack("HTTP request with FLUSHALL in its body", this::httpFlushAll);
    attack("pipelined BF.SCANDUMP of a 16 MiB filter, replies never read", this::outputHog);
    attack("DEDUP.RESERVE of 1024 slices of 2^40 ids, then a claim", this::hugeDedup);
    attack("sketches sized past the heap (CMS, TOPK, TDIGEST, CF, BF)", this::hugeSketches);
    attack("12 clients each sending 64 MB of an unfinished 500 MB argument", this::queryHog);
    attack("BF.RESERVE of 24 MB filters until refused", this::fillToMaxmemory);
    attack("array and bulk lengths of 2^31-1, negative, non-numeric", this::protocolBombs);
    attack("1 MB of random bytes on 8 connections", this::garbage);
    attack("BF.LOADCHUNK and CF.LOADCHUNK of random bytes", this::bogusChunks);
    attack("200,000 pipelined BF.ADD, replies never read", this::unreadWrites);
    attack("2,000 connections opened at once", this::connectionFlood);

    // Nothing acknowledged before the attacks is lost across a kill -9 after them.
    server.kill();
    server = ServerProcess.start(data);
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.EXISTS", "canary", "acknowledged")).isEqualTo(1L);
      List<?> claim = (List<?>) c.call("DEDUP.CLAIM", "canary-d", "job-1", "worker-b");
      assertThat(text(claim.get(0))).isEqualTo("duplicate");
      assertThat(text(claim.get(1))).isEqualTo("worker-a");
    }
    record("(kill -9, restart)", "canary kept");
    server.close();
    Files.writeString(Path.of("target", "hostile-run.md"), table());
  }

  @FunctionalInterface
  private interface Attack {
    String run() throws Exception;
  }

  private void attack(String what, Attack attack) throws Exception {
    long keys = dbsize();
    String outcome = attack.run();
    assertThat(server.alive()).as("alive after: " + what).isTrue();
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("PING")).as("answers after: " + what).isEqualTo("PONG");
      assertThat(c.call("BF.EXISTS", "canary", "acknowledged")).isEqualTo(1L);
    }
    assertThat(dbsize())
        .as("keys after (each attack removes what it made): " + what)
        .isEqualTo(keys);
    record(what, outcome);
    assertThat(server.statusKb("VmRSS")).as("resident after: " + what).isLessThan(RSS_BOUND_KB);
  }

  private void record(String what, String outcome) throws IOException {
    String heap;
    try (RespClient c = new RespClient(server.port())) {
      String info = new String((byte[]) c.call("INFO", "memory"), StandardCharsets.US_ASCII);
      heap =
          field(info, "jvm_heap_used_human") + " / used_memory " + field(info, "used_memory_human");
    }
    rows.add(
        "| "
            + what
            + " | "
            + outcome
            + " | "
            + server.statusKb("VmRSS") / 1024
            + " | "
            + server.statusKb("VmHWM") / 1024
            + " | "
            + heap
            + " |");
  }

  private static String text(Object reply) {
    return reply instanceof byte[] b
        ? new String(b, StandardCharsets.UTF_8)
        : String.valueOf(reply);
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1);
      }
    }
    return "?";
  }

  private String table() {
    StringBuilder b = new StringBuilder();
    b.append("| attack | outcome | RSS MB | peak RSS MB | heap / used_memory |\n");
    b.append("|---|---|---:|---:|---|\n");
    rows.forEach(r -> b.append(r).append('\n'));
    return b.toString();
  }

  private long stat(String section, String name) throws IOException {
    try (RespClient c = new RespClient(server.port())) {
      String info = new String((byte[]) c.call("INFO", section), StandardCharsets.US_ASCII);
      return Long.parseLong(field(info, name));
    }
  }

  private long dbsize() throws IOException {
    try (RespClient c = new RespClient(server.port())) {
      return (Long) c.call("DBSIZE");
    }
  }

  private Socket socket() throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5000);
    s.setSoTimeout(10_000);
    return s;
  }

  /** Writes until the server closes the connection or {@code bytes} are sent; true if closed. */
  private static boolean writeUntilClosed(OutputStream out, long bytes) {
    byte[] block = new byte[64 << 10];
    try {
      for (long sent = 0; sent < bytes; sent += block.length) {
        out.write(block);
      }
      out.flush();
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  // ---- the attacks

  private String httpFlushAll() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      c.sendRaw(
          ("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 12\r\n\r\n\r\nFLUSHALL\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      c.flush();
      assertThat(c.closedWithin(10_000)).as("closed").isTrue();
    }
    return "closed before FLUSHALL ran";
  }

  private String outputHog() throws Exception {
    long before = stat("stats", "client_output_buffer_limit_disconnections");
    long evictedBefore = stat("stats", "evicted_clients");
    try (RespClient c = new RespClient(server.port())) {
      assertThat(c.call("BF.RESERVE", "hog", "0.01", "14000000")).isEqualTo("OK");
    }
    String held = null;
    try (Socket s = socket()) {
      s.setReceiveBufferSize(4096);
      OutputStream out = s.getOutputStream();
      byte[] cmd = "BF.SCANDUMP hog 1\r\n".repeat(200).getBytes(StandardCharsets.US_ASCII);
      try {
        out.write(cmd);
        out.flush();
      } catch (IOException e) {
        // closed while sending: what is expected
      }
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (System.nanoTime() < deadline
          && stat("stats", "client_output_buffer_limit_disconnections") == before
          && stat("stats", "evicted_clients") == evictedBefore) {
        Thread.sleep(100);
      }
      // Not closed: then the server stopped reading it while its replies wait, which bounds them.
      try (RespClient c = new RespClient(server.port())) {
        String list = new String((byte[]) c.call("CLIENT", "LIST"), StandardCharsets.US_ASCII);
        for (String line : list.split("\n")) {
          if (line.contains("cmd=bf.scandump")) {
            long omem = Long.parseLong(line.replaceAll(".* omem=(\\d+) .*", "$1").strip());
            assertThat(omem).as("replies held for it").isLessThanOrEqualTo(256L << 20);
            held = "not read while " + (omem >> 20) + " MB of replies wait";
          }
        }
      }
    }
    try (RespClient c = new RespClient(server.port())) {
      c.call("DEL", "hog");
    }
    long limit = stat("stats", "client_output_buffer_limit_disconnections") - before;
    long evicted = stat("stats", "evicted_clients") - evictedBefore;
    if (limit + evicted == 0) {
      assertThat(held).as("the reader of nothing was closed, or is no longer read").isNotNull();
      return held;
    }
    return limit > 0 ? "closed at client-output-buffer-limit" : "closed at maxmemory-clients";
  }

  private String hugeDedup() throws Exception {
    try (RespClient c = new RespClient(server.port())) {
      Object reserve =
          c.call("DEDUP.RESERVE", "w", "3650d", "SLICES", "1024", "CAPACITY", "1099511627776");
      Object recent = c.call("DEDUP.RESERVE", "rx", "1h", "RECENT", "100000000000");
      assertThat(recent).isInstanceOf(Err.class);
      if (reserve instanceof Err e) {
        return "refused: " + e.text();
      }
      Object claim = c.call("DEDUP.CLAIM", "w", "id-1", "o");
      c.call("DEL", "w");
      assertThat(claim).as("a claim that cannot fit").isInstanceOf(Err.class);
      return "claim refused: " + ((Err) claim).text();
    }
  }

  private String hugeSketches() throws Exception {
    String[][] commands = {
      {"CMS.INITBYDIM", "c", "2000000000", "10"},
      {"TOPK.RESERVE", "t", "100000000", "100000000", "10"},
      {"TDIGEST.CREATE", "td", "COMPRESSION", "1000000000"},
      {"CF.RESERVE", "cf", "1000000000000"},
      {"BF.RESERVE", "bf", "0.000001", "100000000000"},
    };
    int refused = 0;
    String first = null;
    try (RespClient c = new RespClient(server.port())) {
      for (String[] cmd : commands) {
        Object reply = c.call(cmd);
        if (reply instanceof Err e) {
          refused++;
          first = first == null ? e.text() : first;
        }
      }
      assertThat(c.call("EXISTS", "c", "t", "td", "cf", "bf")).isEqualTo(0L);
    }
    assertThat(refused).as("every oversized sketch refused").isEqualTo(commands.length);
    return refused + " refused, e.g. " + first;
  }

  private String queryHog() throws Exception {
    long evictedBefore = stat("stats", "evicted_clients");
    List<Socket> sockets = new ArrayList<>();
    List<Thread> senders = new ArrayList<>();
    int[] closed = new int[1];
    for (int i = 0; i < 12; i++) {
      Socket s = socket();
      sockets.add(s);
      senders.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      OutputStream out = s.getOutputStream();
                      out.write(
                          "*2\r\n$4\r\nECHO\r\n$524288000\r\n".getBytes(StandardCharsets.US_ASCII));
                      if (writeUntilClosed(out, 64L << 20)) {
                        synchronized (closed) {
                          closed[0]++;
                        }
                      }
                    } catch (IOException e) {
                      synchronized (closed) {
                        closed[0]++;
                      }
                    }
                  }));
    }
    for (Thread t : senders) {
      t.join();
    }
    long evicted = stat("stats", "evicted_clients") - evictedBefore;
    for (Socket s : sockets) {
      s.close();
    }
    assertThat(evicted).as("clients closed at maxmemory-clients").isPositive();
    return evicted + " closed at maxmemory-clients";
  }

  private String fillToMaxmemory() throws Exception {
    int made = 0;
    String refusal = null;
    try (RespClient c = new RespClient(server.port())) {
      for (int i = 0; i < 64 && refusal == null; i++) {
        Object reply = c.call("BF.RESERVE", "mm" + i, "0.0001", "10000000");
        if (reply instanceof Err e) {
          refusal = e.text();
        } else {
          made++;
        }
      }
      for (int i = 0; i < made; i++) {
        c.call("DEL", "mm" + i);
      }
    }
    assertThat(refusal).as("refused before the heap ran out").isNotNull();
    return made + " made, then: " + refusal;
  }

  private String protocolBombs() throws Exception {
    String[] bombs = {
      "*2147483647\r\n",
      "*1\r\n$2147483647\r\n",
      "*-5\r\n*1\r\n$4\r\nPINGX\r\n",
      "*1\r\n$-7\r\n",
      "*x\r\n",
      "*1\r\n$4\r\nPINGXX\r\n",
    };
    int errors = 0;
    int closed = 0;
    for (String bomb : bombs) {
      try (RespClient c = new RespClient(server.port())) {
        c.sendRaw(bomb.getBytes(StandardCharsets.US_ASCII));
        c.flush();
        try {
          if (c.read() instanceof Err) {
            errors++;
          }
        } catch (IOException e) {
          closed++;
        }
      }
    }
    return errors + " protocol errors, " + closed + " closed, of " + bombs.length;
  }

  private String garbage() throws Exception {
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      byte[] junk = new byte[1 << 20];
      RANDOM.nextBytes(junk);
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try (Socket s = socket()) {
                      s.getOutputStream().write(junk);
                    } catch (IOException e) {
                      // closed by the server: expected
                    }
                  }));
    }
    for (Thread t : threads) {
      t.join();
    }
    return "answered with errors or closed";
  }

  private String bogusChunks() throws Exception {
    byte[] junk = new byte[1 << 20];
    RANDOM.nextBytes(junk);
    try (RespClient c = new RespClient(server.port())) {
      Object bf = c.call("BF.LOADCHUNK".getBytes(), "lc".getBytes(), "1".getBytes(), junk);
      Object cf = c.call("CF.LOADCHUNK".getBytes(), "lc2".getBytes(), "1".getBytes(), junk);
      assertThat(bf).isInstanceOf(Err.class);
      assertThat(cf).isInstanceOf(Err.class);
      assertThat(c.call("EXISTS", "lc", "lc2")).isEqualTo(0L);
      return "refused: " + ((Err) bf).text();
    }
  }

  private String unreadWrites() throws Exception {
    long clients = stat("clients", "connected_clients");
    long rss;
    try (Socket s = socket()) {
      s.setReceiveBufferSize(4096);
      OutputStream out = new java.io.BufferedOutputStream(s.getOutputStream(), 1 << 16);
      Thread writer =
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      for (int i = 0; i < 200_000; i++) {
                        out.write(
                            ("BF.ADD flood item" + i + "\r\n").getBytes(StandardCharsets.US_ASCII));
                      }
                      out.flush();
                    } catch (IOException e) {
                      // closed: fine
                    }
                  });
      writer.join(5_000); // the server stops reading; the writer blocks, as it should
      rss = server.statusKb("VmRSS") / 1024;
      s.close();
      writer.join();
    }
    // The server may run what it had read before it sees the close: remove the key after that.
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (stat("clients", "connected_clients") > clients && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    try (RespClient c = new RespClient(server.port())) {
      c.call("DEL", "flood");
    }
    return "not read while replies wait (RSS " + rss + " MB while blocked)";
  }

  private String connectionFlood() throws Exception {
    List<Socket> sockets = new ArrayList<>();
    try {
      for (int i = 0; i < 2000; i++) {
        Socket s = socket();
        s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
        sockets.add(s);
      }
      for (Socket s : sockets) {
        assertThat(new String(s.getInputStream().readNBytes(7), StandardCharsets.US_ASCII))
            .isEqualTo("+PONG\r\n");
      }
      long connected = stat("clients", "connected_clients");
      assertThat(connected).isGreaterThanOrEqualTo(2000);
      return connected + " connected, each answered";
    } finally {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}
