package io.idem.server.commands;

import static io.idem.server.commands.GenericKeyspaceTest.put;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.BloomFilter;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InfoTest {

  private final Harness h = new Harness();

  private String info(String... sections) {
    String[] words = new String[sections.length + 1];
    words[0] = "INFO";
    System.arraycopy(sections, 0, words, 1, sections.length);
    Reply r = h.call(words);
    assertThat(r).isInstanceOf(Reply.Verbatim.class);
    assertThat(((Reply.Verbatim) r).format()).isEqualTo("txt");
    return ((Reply.Verbatim) r).text();
  }

  private static List<String> titles(String text) {
    List<String> out = new ArrayList<>();
    for (String line : text.split("\r\n")) {
      if (line.startsWith("# ")) {
        out.add(line.substring(2));
      }
    }
    return out;
  }

  @Test
  void default_hasEverySectionButCommandstats_inRedisOrder() {
    List<String> expected =
        List.of(
            "Server",
            "Clients",
            "Memory",
            "Persistence",
            "Stats",
            "Replication",
            "Modules",
            "Cluster",
            "Keyspace");
    assertThat(titles(info())).isEqualTo(expected);
    assertThat(titles(info("default"))).isEqualTo(expected);
  }

  @Test
  void allAndEverything_addCommandstats() {
    assertThat(titles(info("all"))).contains("Commandstats", "Latencystats", "Queues").hasSize(12);
    assertThat(titles(info("everything"))).isEqualTo(titles(info("all")));
  }

  /**
   * Redis 7's latencystats: each command's p50, p99 and p99.9 in microseconds, as it shapes them.
   */
  @Test
  void latencystats_givesEachCommandsPercentiles() {
    h.call("PING");
    h.call("PING");
    assertThat(info("latencystats"))
        .startsWith("# Latencystats\r\n")
        .containsPattern(
            "latency_percentiles_usec_ping:p50=\\d+\\.\\d{3},p99=\\d+\\.\\d{3},p99\\.9=\\d+\\.\\d{3}\r\n");
  }

  /** Memory by type, as keys are made and dropped: MEMORY USAGE summed, kept without a walk. */
  @Test
  void memory_showsBytesByType() {
    h.call("BF.ADD", "a", "x");
    h.call("BF.ADD", "b", "x");
    long bytes =
        ((io.idem.server.reply.Reply.Int) h.call("MEMORY", "USAGE", "a")).value()
            + ((io.idem.server.reply.Reply.Int) h.call("MEMORY", "USAGE", "b")).value();
    assertThat(info("memory")).contains("used_memory_by_type:MBbloom--=" + bytes + "\r\n");
    h.call("DEL", "a", "b");
    assertThat(info("memory")).contains("used_memory_by_type:MBbloom--=0\r\n");
  }

  /** The server looking at its queues is not a client's read (finding 13: hits grew). */
  @Test
  void queues_countedWithoutCountingKeyspaceHits() {
    h.call("QUEUE.ADD", "q", "job");
    String before = info("stats").replaceAll("(?s).*keyspace_hits:(\\d+).*", "$1");
    assertThat(info("queues")).contains("q");
    info("all");
    assertThat(info("stats").replaceAll("(?s).*keyspace_hits:(\\d+).*", "$1")).isEqualTo(before);
  }

  /**
   * INFO queues finds the queues without a walk of the keyspace (finding 10): with 300,000 other
   * keys, ten thousand INFO queues walked three billion keys (two thousand took 70 s here), which
   * the timeout catches; now each looks at the queues alone.
   */
  @Test
  @org.junit.jupiter.api.Timeout(
      value = 120,
      threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void queues_areListedWithoutAWalkOfTheKeyspace() {
    for (int i = 0; i < 300_000; i++) {
      h.call("PFADD", "other-" + i, "x");
    }
    for (String q : List.of("q1", "q2", "q3")) {
      h.call("QUEUE.ADD", q, "job");
    }
    h.call("RENAME", "q3", "q4");
    h.call("DEL", "q2");
    for (int i = 0; i < 10_000; i++) {
      String text = info("queues");
      assertThat(text).contains("queues:2").contains("q1").contains("q4").doesNotContain("q2");
    }
  }

  @Test
  void sections_anyCase_eachOnce_unknownLeftOut() {
    assertThat(titles(info("CLIENTS", "server", "clients", "bogus")))
        .isEqualTo(List.of("Server", "Clients"));
    assertThat(info("bogus")).isEmpty();
  }

  @Test
  void server_reportsRedis74_andIdem() {
    String text = info("server");
    // redis-cli finds the version by "\nredis_version:" up to the next "\r".
    assertThat(text).startsWith("# Server\r\nredis_version:7.4.0\r\nidem_version:");
    assertThat(text)
        .contains("\r\nredis_mode:standalone\r\n")
        .contains("\r\ntcp_port:6379\r\n")
        .contains("\r\nprocess_id:" + ProcessHandle.current().pid() + "\r\n")
        .containsPattern("\r\nuptime_in_seconds:\\d+\r\n")
        .containsPattern("\r\nbloom_probe:(vector512|scalar)\r\n")
        .contains("\r\nbloom_probe:" + BloomFilter.probeKind() + "\r\n")
        .endsWith("\r\n");
  }

  @Test
  void sections_areSeparatedByAnEmptyLine() {
    String text = info("replication", "cluster");
    assertThat(text)
        .isEqualTo(
            "# Replication\r\nrole:master\r\nconnected_slaves:0\r\n\r\n# Cluster\r\n"
                + "cluster_enabled:0\r\n");
  }

  @Test
  void clients_countsSessions() {
    assertThat(info("clients"))
        .isEqualTo("# Clients\r\nconnected_clients:1\r\nmaxclients:10000\r\nblocked_clients:0\r\n");
  }

  @Test
  void memory_reportsTheEnginesBytes_andMaxmemory() {
    put(h, "a");
    h.call("CONFIG", "SET", "maxmemory", "64mb");
    String text = info("memory");
    assertThat(text)
        .contains("\r\nused_memory:" + h.engine.usedMemory() + "\r\n")
        .contains("\r\nused_memory_dataset:" + h.engine.datasetMemory() + "\r\n")
        .contains("\r\nmem_aof_buffer:0\r\nmem_snapshot_images:0\r\n")
        .contains("\r\nmaxmemory:67108864\r\nmaxmemory_human:64.00M\r\n")
        .contains("\r\nmaxmemory_policy:noeviction\r\n")
        .containsPattern("\r\nused_memory_human:\\d+B\r\n")
        .containsPattern("\r\njvm_heap_used_human:\\d+\\.\\d\\d[KMG]\r\n");
  }

  @Test
  void persistence_reportsTheJournal() {
    put(h, "a");
    String text = info("persistence");
    long seq = h.engine.journal().lastSeq();
    assertThat(text)
        .startsWith("# Persistence\r\nloading:0\r\n")
        .contains("\r\nrdb_last_save_time:0\r\n")
        .contains("\r\nappendfsync:everysec\r\n")
        .contains("\r\njournal_last_seq:" + seq + "\r\njournal_durable_seq:" + seq + "\r\n")
        .contains("\r\njournal_pending:0\r\njournal_status:ok\r\n")
        .contains("\r\ndata_dir:./idem-data\r\n");
  }

  @Test
  void stats_countsCommandsAndErrors() {
    h.call("PING");
    h.call("NOPE");
    String text = info("stats");
    // PING, NOPE and this INFO.
    assertThat(text)
        .contains("\r\ntotal_commands_processed:3\r\n")
        .contains("\r\ntotal_error_replies:1\r\n")
        .contains("\r\nexpired_keys:0\r\n");
  }

  @Test
  void keyspace_showsDb0OnlyWhenItHasKeys() {
    assertThat(info("keyspace")).isEqualTo("# Keyspace\r\n");
    put(h, "a", "b");
    h.call("EXPIREAT", "a", "4000000000");
    assertThat(info("keyspace"))
        .isEqualTo("# Keyspace\r\ndb0:keys=2,expires=1,avg_ttl=0,subexpiry=0\r\n");
  }

  @Test
  void commandstats_countsCallsRejectionsAndFailures() {
    h.call("PING");
    h.call("PING");
    h.call("SELECT", "1");
    h.call("ECHO");
    String text = info("commandstats");
    assertThat(text)
        .startsWith("# Commandstats\r\n")
        .containsPattern(
            "\r\ncmdstat_echo:calls=0,usec=0,usec_per_call=0\\.00,rejected_calls=1,"
                + "failed_calls=0\r\n")
        .containsPattern(
            "\r\ncmdstat_ping:calls=2,usec=\\d+,usec_per_call=\\d+\\.\\d\\d,rejected_calls=0,"
                + "failed_calls=0\r\n")
        .containsPattern(
            "\r\ncmdstat_select:calls=1,usec=\\d+,usec_per_call=[\\d.]+,"
                + "rejected_calls=0,failed_calls=1\r\n")
        .doesNotContain("cmdstat_info");
  }

  @Test
  void verbatimInBothProtocols() {
    h.session.setProtocol(3);
    assertThat(info("server")).startsWith("# Server\r\n");
  }
}
