package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/** MULTI/EXEC and WATCH from the clients users have: Jedis, Lettuce, redis-cli and redis-py. */
class TransactionsTest {

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

  /** RedisBloom's commands as Jedis sends any command: its Transaction has no methods for them. */
  enum Bloom implements redis.clients.jedis.commands.ProtocolCommand {
    BF_ADD,
    BF_EXISTS;

    @Override
    public byte[] getRaw() {
      return name().replace('_', '.').getBytes(StandardCharsets.US_ASCII);
    }
  }

  @Test
  void jedis_multiExec_andAWatchedKeyChangedByAnotherClient() {
    try (Jedis j = new Jedis("127.0.0.1", server.port());
        Jedis other = new Jedis("127.0.0.1", server.port())) {
      Transaction t = j.multi();
      Response<Object> first = t.sendCommand(Bloom.BF_ADD, "jedis:tx", "a");
      Response<Object> again = t.sendCommand(Bloom.BF_ADD, "jedis:tx", "a");
      Response<Object> exists = t.sendCommand(Bloom.BF_EXISTS, "jedis:tx", "a");
      List<Object> replies = t.exec();
      assertThat(replies).hasSize(3);
      assertThat(first.get()).isEqualTo(1L);
      assertThat(again.get()).isEqualTo(0L);
      assertThat(exists.get()).isEqualTo(1L);

      j.watch("jedis:tx");
      other.sendCommand(Bloom.BF_ADD, "jedis:tx", "b");
      Transaction aborted = j.multi();
      aborted.sendCommand(Bloom.BF_ADD, "jedis:tx", "c");
      assertThat(aborted.exec()).as("a watched key changed: nothing ran").isNull();
      assertThat(j.sendCommand(Bloom.BF_EXISTS, "jedis:tx", "c")).isEqualTo(0L);
    }
  }

  @Test
  void lettuce_multiExec_andAWatchedKeyChangedByAnotherClient() {
    io.lettuce.core.RedisClient client =
        io.lettuce.core.RedisClient.create(RedisURI.create("127.0.0.1", server.port()));
    try (StatefulRedisConnection<String, String> c = client.connect();
        StatefulRedisConnection<String, String> o = client.connect()) {
      RedisCommands<String, String> sync = c.sync();
      assertThat(sync.multi()).isEqualTo("OK");
      sync.pfadd("lettuce:tx", "a", "b");
      sync.pfadd("lettuce:tx", "a");
      sync.pfcount("lettuce:tx");
      TransactionResult r = sync.exec();
      assertThat(r.wasDiscarded()).isFalse();
      assertThat(List.copyOf(r.stream().toList())).containsExactly(1L, 0L, 2L);

      sync.watch("lettuce:tx");
      o.sync().pfadd("lettuce:tx", "c");
      sync.multi();
      sync.pfadd("lettuce:tx", "d");
      assertThat(sync.exec().wasDiscarded()).isTrue();
      assertThat(sync.pfcount("lettuce:tx")).isEqualTo(3L);
    } finally {
      client.shutdown();
    }
  }

  @Test
  void redisCli_readsATransactionFromStandardInput() throws Exception {
    String out =
        run(
            "MULTI\nBF.ADD cli:tx a\nBF.ADD cli:tx a\nNOSUCH\nEXEC\n"
                + "MULTI\nBF.ADD cli:tx b\nBF.EXISTS cli:tx a\nEXEC\n",
            "redis-cli",
            "-p",
            Integer.toString(server.port()));
    assertThat(out)
        .isEqualTo(
            "OK\nQUEUED\nQUEUED\nERR unknown command 'NOSUCH', with args beginning with: \n\n"
                + "EXECABORT Transaction discarded because of previous errors.\n\n"
                + "OK\nQUEUED\nQUEUED\n1\n0\n");
  }

  /**
   * redis-py's default pipeline sends MULTI and EXEC around the commands; Debian's python3-redis
   * under Debian's python3 (.ci/run installs it).
   */
  @Test
  void redisPy_defaultPipelineIsATransaction() throws Exception {
    String script =
        "import redis\n"
            + "r = redis.Redis(port="
            + server.port()
            + ")\n"
            + "p = r.pipeline()\n"
            + "p.execute_command('BF.ADD', 'py:tx', 'a')\n"
            + "p.execute_command('BF.ADD', 'py:tx', 'a')\n"
            + "p.execute_command('BF.EXISTS', 'py:tx', 'a')\n"
            + "print(p.execute())\n";
    assertThat(run(script, "/usr/bin/python3", "-")).isEqualTo("[1, 0, 1]\n");
  }

  /** Runs a program with {@code input} on its standard input; its output, stderr merged. */
  private static String run(String input, String... command)
      throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException(
          command[0] + " is needed for this test: .ci/run installs it from Debian's packages", e);
    }
    try (OutputStream in = p.getOutputStream()) {
      in.write(input.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out;
  }
}
