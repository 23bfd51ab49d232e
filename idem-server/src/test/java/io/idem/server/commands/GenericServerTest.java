package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** CONFIG, SAVE, BGSAVE, LASTSAVE and SHUTDOWN. */
class GenericServerTest {

  private final Harness h = new Harness();

  @Test
  void configGet_exactName_anyCase() {
    assertThat(h.show("CONFIG", "GET", "port")).isEqualTo("{\"port\"=\"6379\"}");
    assertThat(h.show("config", "get", "PORT")).isEqualTo("{\"port\"=\"6379\"}");
    assertThat(h.show("CONFIG", "GET", "nope")).isEqualTo("{}");
  }

  @Test
  void configGet_globs_inDefinitionOrder_eachNameOnce() {
    assertThat(h.show("CONFIG", "GET", "max*", "maxclients"))
        .isEqualTo(
            "{\"maxclients\"=\"10000\", \"maxmemory\"=\""
                + io.idem.server.dispatch.Config.defaultMaxMemory()
                + "\", \"maxmemory-clients\"=\""
                + io.idem.server.dispatch.Config.defaultMaxMemoryClients()
                + "\", \"max-multibulk-len\"=\"1048576\", \"max-inline-len\"=\"65536\"}");
    assertThat(h.show("CONFIG", "GET", "t?meout", "databases"))
        .isEqualTo("{\"timeout\"=\"0\", \"databases\"=\"1\"}");
  }

  @Test
  void configGet_needsAPattern() {
    assertThat(h.show("CONFIG", "GET"))
        .isEqualTo("(error) ERR wrong number of arguments for 'config|get' command");
  }

  @Test
  void configSet_setsEveryPair() {
    assertThat(h.show("CONFIG", "SET", "maxclients", "50", "MAXMEMORY", "1mb")).isEqualTo("OK");
    assertThat(h.show("CONFIG", "GET", "maxclients", "maxmemory"))
        .isEqualTo("{\"maxclients\"=\"50\", \"maxmemory\"=\"1048576\"}");
  }

  @Test
  void configSet_unknownName() {
    assertThat(h.show("CONFIG", "SET", "maxclients", "5", "nope", "1"))
        .isEqualTo("(error) ERR Unknown option or number of arguments for CONFIG SET - 'nope'");
    assertThat(h.config.get("maxclients")).isEqualTo("10000");
  }

  @Test
  void configSet_immutable() {
    assertThat(h.show("CONFIG", "SET", "port", "7000"))
        .isEqualTo(
            "(error) ERR CONFIG SET failed (possibly related to argument 'port') - can't set"
                + " immutable config");
  }

  @Test
  void configSet_duplicate() {
    assertThat(h.show("CONFIG", "SET", "maxclients", "5", "MAXCLIENTS", "6"))
        .isEqualTo(
            "(error) ERR CONFIG SET failed (possibly related to argument 'MAXCLIENTS') -"
                + " duplicate parameter");
  }

  @Test
  void configSet_oneBadValue_setsNothing() {
    assertThat(h.show("CONFIG", "SET", "maxclients", "5", "timeout", "soon"))
        .isEqualTo(
            "(error) ERR CONFIG SET failed (possibly related to argument 'timeout') - timeout must"
                + " be an integer, not 'soon'");
    assertThat(h.show("CONFIG", "SET", "appendfsync", "sometimes"))
        .isEqualTo(
            "(error) ERR CONFIG SET failed (possibly related to argument 'appendfsync') -"
                + " appendfsync must be one of always, everysec, no, not 'sometimes'");
    assertThat(h.config.get("maxclients")).isEqualTo("10000");
  }

  @Test
  void configSet_aListenerRefusing_undoesTheOthers() {
    h.config.onChange(
        "maxclients",
        v -> {
          if (v.equals("7")) {
            throw new IllegalStateException("seven is unlucky");
          }
        });
    assertThat(h.show("CONFIG", "SET", "timeout", "5", "maxclients", "7"))
        .isEqualTo(
            "(error) ERR CONFIG SET failed (possibly related to argument 'maxclients') - seven is"
                + " unlucky");
    assertThat(h.config.get("timeout")).isEqualTo("0");
    assertThat(h.config.get("maxclients")).isEqualTo("10000");
  }

  @Test
  void configSet_oddArguments_isSyntaxError() {
    assertThat(h.show("CONFIG", "SET", "maxclients", "5", "timeout"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("CONFIG", "SET", "maxclients"))
        .isEqualTo("(error) ERR wrong number of arguments for 'config|set' command");
  }

  @Test
  void config_unknownSubcommand() {
    assertThat(h.show("CONFIG", "REWRITE"))
        .isEqualTo("(error) ERR unknown subcommand 'REWRITE'. Try CONFIG HELP.");
  }

  @Test
  void configHelp_listsTheSubcommands() {
    assertThat(h.show("CONFIG", "HELP"))
        .startsWith("[CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:, GET")
        .contains("SET (parameter value)...")
        .endsWith("HELP,     Print this help.]");
  }

  @Test
  void configResetstat_zeroesCounters() {
    h.call("PING");
    h.call("NOPE");
    assertThat(h.show("CONFIG", "RESETSTAT")).isEqualTo("OK");
    assertThat(h.stats.errorReplies.sum()).isZero();
    assertThat(h.stats.commands()).doesNotContainKey("ping");
  }

  @Test
  void infoStats_countsKeyspaceHitsAndMisses_untilResetstat() {
    h.call("BF.ADD", "bf", "a");
    h.call("BF.EXISTS", "bf", "a"); // hit
    h.call("BF.EXISTS", "nokey", "a"); // miss
    h.call("EXISTS", "bf", "nokey", "bf"); // two hits, a miss
    h.call("TYPE", "nokey"); // miss
    String info = h.show("INFO", "stats");
    assertThat(info).contains("keyspace_hits:3\r\n").contains("keyspace_misses:3\r\n");

    assertThat(h.show("CONFIG", "RESETSTAT")).isEqualTo("OK");
    assertThat(h.show("INFO", "stats"))
        .contains("keyspace_hits:0\r\n")
        .contains("keyspace_misses:0\r\n");
  }

  @Test
  void save_takesASnapshot() {
    assertThat(h.show("SAVE")).isEqualTo("OK");
    assertThat(h.saves).hasValue(1);
    assertThat(h.show("SAVE", "now"))
        .isEqualTo("(error) ERR wrong number of arguments for 'save' command");
  }

  @Test
  void bgsave_startsOne() {
    assertThat(h.show("BGSAVE")).isEqualTo("Background saving started");
    assertThat(h.show("BGSAVE", "schedule")).isEqualTo("Background saving started");
    assertThat(h.saves).hasValue(2);
    assertThat(h.show("BGSAVE", "later")).isEqualTo("(error) ERR syntax error");
    assertThat(h.saves).hasValue(2);
  }

  @Test
  void lastsave_isTheServersFigure() {
    assertThat(h.show("LASTSAVE")).isEqualTo("(integer) 0");
  }

  @Test
  void shutdown_stopsTheServer() {
    assertThat(h.show("SHUTDOWN", "NOSAVE", "NOW")).isEqualTo("(no reply)");
    assertThat(h.shutdownRequested).isTrue();
    assertThat(h.saves).hasValue(0);
  }

  @Test
  void shutdownSave_snapshotsFirst() {
    assertThat(h.show("SHUTDOWN", "SAVE")).isEqualTo("(no reply)");
    assertThat(h.saves).hasValue(1);
    assertThat(h.shutdownRequested).isTrue();
  }

  @Test
  void shutdown_badCombinations_doNothing() {
    assertThat(h.show("SHUTDOWN", "SAVE", "NOSAVE")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("SHUTDOWN", "ABORT", "NOW")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("SHUTDOWN", "LATER")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("SHUTDOWN", "ABORT")).isEqualTo("(error) ERR No shutdown in progress.");
    assertThat(h.shutdownRequested).isFalse();
  }
}
