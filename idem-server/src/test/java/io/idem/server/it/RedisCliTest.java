package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Debian's redis-cli against the server: exact output, as a user at a terminal sees it. */
class RedisCliTest {

  @TempDir static Path dir;
  static ServerHarness server;

  @BeforeAll
  static void start() throws Exception {
    server = new ServerHarness(dir.resolve("data"));
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  /** Runs redis-cli with the arguments; returns its standard output (stderr merged). */
  static String cli(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add("redis-cli");
    cmd.add("-p");
    cmd.add(Integer.toString(server.port()));
    cmd.addAll(List.of(args));
    Process p;
    try {
      p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException(
          "redis-cli is needed for this test: apt-get install redis-tools (.ci/run does)", e);
    }
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out;
  }

  @Test
  void pingAndEcho() throws Exception {
    assertThat(cli("PING")).isEqualTo("PONG\n");
    assertThat(cli("ECHO", "hello world")).isEqualTo("hello world\n");
  }

  @Test
  void bloomCommands() throws Exception {
    assertThat(cli("BF.RESERVE", "cli:bf", "0.01", "1000")).isEqualTo("OK\n");
    assertThat(cli("BF.ADD", "cli:bf", "a")).isEqualTo("1\n");
    assertThat(cli("BF.ADD", "cli:bf", "a")).isEqualTo("0\n");
    assertThat(cli("BF.MADD", "cli:bf", "a", "b", "c")).isEqualTo("0\n1\n1\n");
    assertThat(cli("BF.EXISTS", "cli:bf", "b")).isEqualTo("1\n");
    assertThat(cli("BF.MEXISTS", "cli:bf", "b", "zz")).isEqualTo("1\n0\n");
    assertThat(cli("BF.CARD", "cli:bf")).isEqualTo("3\n");
    // redis-cli ends an error with an empty line when its output is not a terminal.
    assertThat(cli("BF.RESERVE", "cli:bf", "0.01", "1000")).isEqualTo("ERR item exists\n\n");
    assertThat(cli("TYPE", "cli:bf")).isEqualTo("MBbloom--\n");
  }

  @Test
  void cuckooCommands() throws Exception {
    assertThat(cli("CF.RESERVE", "cli:cf", "1000")).isEqualTo("OK\n");
    assertThat(cli("CF.ADD", "cli:cf", "x")).isEqualTo("1\n");
    assertThat(cli("CF.ADDNX", "cli:cf", "x")).isEqualTo("0\n");
    assertThat(cli("CF.COUNT", "cli:cf", "x")).isEqualTo("1\n");
    assertThat(cli("CF.DEL", "cli:cf", "x")).isEqualTo("1\n");
    assertThat(cli("CF.EXISTS", "cli:cf", "x")).isEqualTo("0\n");
    assertThat(cli("TYPE", "cli:cf")).isEqualTo("MBbloomCF\n");
  }

  @Test
  void countMinSketchCommands() throws Exception {
    assertThat(cli("CMS.INITBYPROB", "cli:cms", "0.001", "0.01")).isEqualTo("OK\n");
    assertThat(cli("CMS.INCRBY", "cli:cms", "a", "2", "b", "5", "a", "1")).isEqualTo("2\n5\n3\n");
    assertThat(cli("CMS.QUERY", "cli:cms", "a", "b", "c")).isEqualTo("3\n5\n0\n");
    assertThat(cli("CMS.INFO", "cli:cms")).isEqualTo("width\n2000\ndepth\n7\ncount\n8\n");
    assertThat(cli("CMS.INITBYDIM", "cli:cms", "10", "10"))
        .isEqualTo("CMS: key already exists\n\n");
    assertThat(cli("CMS.INITBYDIM", "cli:cms2", "2000", "7")).isEqualTo("OK\n");
    assertThat(cli("CMS.MERGE", "cli:cms2", "1", "cli:cms", "WEIGHTS", "2")).isEqualTo("OK\n");
    assertThat(cli("CMS.QUERY", "cli:cms2", "a", "b")).isEqualTo("6\n10\n");
    assertThat(cli("TYPE", "cli:cms")).isEqualTo("CMSk-TYPE\n");
  }

  @Test
  void windowedCounterCommands() throws Exception {
    String now = Long.toString(System.currentTimeMillis());
    assertThat(cli("COUNTER.RESERVE", "cli:wc")).isEqualTo("OK\n");
    assertThat(cli("COUNTER.INCRBY", "cli:wc", now, "ip:1", "2", "ip:2", "5")).isEqualTo("2\n");
    assertThat(cli("COUNTER.INCRBY", "cli:wc", now, "ip:1", "-1")).isEqualTo("2\n");
    assertThat(cli("COUNTER.QUERY", "cli:wc", now, "1h", "7d", "NAMES", "ip:1", "ip:2"))
        .isEqualTo("1\n1\n5\n5\n");
    assertThat(cli("COUNTER.INFO", "cli:wc")).contains("Buckets per row\n64\nRow format\n1\n");
    assertThat(cli("TYPE", "cli:wc")).isEqualTo("counter\n");
  }

  @Test
  void hyperLogLogCommands() throws Exception {
    assertThat(cli("PFADD", "cli:hll", "a", "b", "c")).isEqualTo("1\n");
    assertThat(cli("PFADD", "cli:hll", "a")).isEqualTo("0\n");
    assertThat(cli("PFADD", "cli:hll2", "c", "d")).isEqualTo("1\n");
    assertThat(cli("PFCOUNT", "cli:hll")).isEqualTo("3\n");
    assertThat(cli("PFCOUNT", "cli:hll", "cli:hll2")).isEqualTo("4\n");
    assertThat(cli("PFMERGE", "cli:hll3", "cli:hll", "cli:hll2")).isEqualTo("OK\n");
    assertThat(cli("PFCOUNT", "cli:hll3")).isEqualTo("4\n");
    assertThat(cli("TYPE", "cli:hll3")).isEqualTo("string\n");
  }

  @Test
  void windowedDistinctCommands() throws Exception {
    assertThat(cli("DISTINCT.RESERVE", "cli:dc")).isEqualTo("OK\n");
    assertThat(cli("DISTINCT.ADD", "cli:dc", "*", "ip:1", "alice", "ip:1", "bob", "ip:2", "bob"))
        .isEqualTo("3\n");
    assertThat(cli("DISTINCT.ADD", "cli:dc", "*", "ip:1", "alice")).isEqualTo("0\n");
    assertThat(cli("DISTINCT.COUNT", "cli:dc", "*", "1h", "7d", "NAMES", "ip:1", "ip:2"))
        .isEqualTo("2\n2\n1\n1\n");
    assertThat(cli("DISTINCT.INFO", "cli:dc")).contains("Precision\n14\n");
    assertThat(cli("TYPE", "cli:dc")).isEqualTo("distinct\n");
  }

  @Test
  void topKCommands() throws Exception {
    assertThat(cli("TOPK.RESERVE", "cli:topk", "2", "1000", "5", "1")).isEqualTo("OK\n");
    assertThat(cli("TOPK.ADD", "cli:topk", "a", "b", "a")).isEqualTo("\n\n\n");
    assertThat(cli("TOPK.INCRBY", "cli:topk", "c", "5")).isEqualTo("b\n");
    assertThat(cli("TOPK.LIST", "cli:topk", "WITHCOUNT")).isEqualTo("c\n5\na\n2\n");
    assertThat(cli("TOPK.QUERY", "cli:topk", "a", "b")).isEqualTo("1\n0\n");
    assertThat(cli("TOPK.COUNT", "cli:topk", "a", "b", "c")).isEqualTo("2\n1\n5\n");
    assertThat(cli("TOPK.INFO", "cli:topk")).isEqualTo("k\n2\nwidth\n1000\ndepth\n5\ndecay\n1\n");
    assertThat(cli("TYPE", "cli:topk")).isEqualTo("TopK-TYPE\n");
  }

  @Test
  void tDigestCommands() throws Exception {
    assertThat(cli("TDIGEST.CREATE", "cli:td", "COMPRESSION", "1000")).isEqualTo("OK\n");
    assertThat(cli("TDIGEST.ADD", "cli:td", "10", "20", "30", "40", "50", "60")).isEqualTo("OK\n");
    assertThat(cli("TDIGEST.QUANTILE", "cli:td", "0", "0.5", "1")).isEqualTo("10\n40\n60\n");
    assertThat(cli("TDIGEST.CDF", "cli:td", "5", "25")).isEqualTo("0\n0.3333333333333333\n");
    assertThat(cli("TDIGEST.RANK", "cli:td", "0", "30", "70")).isEqualTo("-1\n2\n6\n");
    assertThat(cli("TDIGEST.BYREVRANK", "cli:td", "0", "6")).isEqualTo("60\n-inf\n");
    assertThat(cli("TDIGEST.TRIMMED_MEAN", "cli:td", "0", "1")).isEqualTo("35\n");
    assertThat(cli("TDIGEST.MAX", "cli:td")).isEqualTo("60\n");
    assertThat(cli("TDIGEST.REVRANK", "cli:td", "60", "10")).isEqualTo("0\n5\n");
    assertThat(cli("TDIGEST.BYRANK", "cli:td", "0", "5", "6")).isEqualTo("10\n60\ninf\n");
    assertThat(cli("TDIGEST.MERGE", "cli:td2", "1", "cli:td")).isEqualTo("OK\n");
    assertThat(cli("TDIGEST.INFO", "cli:td2"))
        .startsWith("Compression\n1000\nCapacity\n")
        .contains("Observations\n6\n");
    assertThat(cli("TDIGEST.RESET", "cli:td2")).isEqualTo("OK\n");
    assertThat(cli("TDIGEST.MAX", "cli:td2")).isEqualTo("nan\n");
    assertThat(cli("TDIGEST.MIN", "cli:empty-td"))
        .isEqualTo("ERR T-Digest: key does not exist\n\n");
    assertThat(cli("TYPE", "cli:td")).isEqualTo("TDIS-TYPE\n");
  }

  @Test
  void errorsAsRedisPrintsThem() throws Exception {
    assertThat(cli("NOSUCH", "a"))
        .isEqualTo("ERR unknown command 'NOSUCH', with args beginning with: 'a' \n\n");
    assertThat(cli("BF.ADD", "cli:only-key"))
        .isEqualTo("ERR wrong number of arguments for 'bf.add' command\n\n");
    cli("BF.ADD", "cli:wrong", "a");
    assertThat(cli("CF.ADD", "cli:wrong", "a"))
        .isEqualTo("WRONGTYPE Operation against a key holding the wrong kind of value\n\n");
  }

  @Test
  void keyspaceCommands() throws Exception {
    cli("BF.ADD", "cli:ttl", "a");
    assertThat(cli("EXPIRE", "cli:ttl", "100")).isEqualTo("1\n");
    assertThat(cli("TTL", "cli:ttl")).isEqualTo("100\n");
    assertThat(cli("PERSIST", "cli:ttl")).isEqualTo("1\n");
    assertThat(cli("TTL", "cli:ttl")).isEqualTo("-1\n");
    assertThat(cli("DEL", "cli:ttl", "cli:none")).isEqualTo("1\n");
    assertThat(cli("EXISTS", "cli:ttl")).isEqualTo("0\n");
  }

  @Test
  void scanWalksEveryKey() throws Exception {
    for (int i = 0; i < 50; i++) {
      cli("BF.ADD", "cli:scan:" + i, "a");
    }
    String out = cli("--scan", "--pattern", "cli:scan:*");
    assertThat(out.lines().sorted().distinct().count()).isEqualTo(50);
  }

  @Test
  void resp3Hello() throws Exception {
    String out = cli("-3", "HELLO", "3");
    assertThat(out).contains("server").contains("proto").contains("3");
  }

  @Test
  void pipedCommandsFromStandardInput() throws Exception {
    // redis-cli --pipe sends raw RESP; the summary line counts replies and errors.
    assertThat(cli("BF.RESERVE", "cli:pipe", "0.0001", "10000")).isEqualTo("OK\n");
    Path input = dir.resolve("pipe.txt");
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      b.append("BF.ADD cli:pipe item").append(i).append("\r\n");
    }
    java.nio.file.Files.writeString(input, b.toString());
    Process p =
        new ProcessBuilder("redis-cli", "-p", Integer.toString(server.port()), "--pipe")
            .redirectInput(input.toFile())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(out).contains("errors: 0, replies: 1000");
    assertThat(cli("BF.CARD", "cli:pipe")).isEqualTo("1000\n");
  }
}
