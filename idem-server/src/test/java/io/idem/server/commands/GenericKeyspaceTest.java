package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.engine.ValueCodec;
import io.idem.server.reply.Reply;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GenericKeyspaceTest {

  /** A test-only value type, so the keyspace has something to hold. */
  static final class Counter {
    long n;
  }

  static final ValueCodec<Counter> COUNTER =
      new ValueCodec<>() {
        @Override
        public byte typeId() {
          return 127;
        }

        @Override
        public String typeName() {
          return "counter";
        }

        @Override
        public Class<Counter> valueClass() {
          return Counter.class;
        }

        @Override
        public Counter create(byte[] recipe) {
          return new Counter();
        }

        @Override
        public void apply(Counter value, byte op, byte[] payload) {
          value.n++;
        }

        @Override
        public void write(Counter value, OutputStream out) {}

        @Override
        public Counter read(InputStream in, long maxBytes) {
          return new Counter();
        }

        @Override
        public long memoryUsage(Counter value) {
          return 16;
        }
      };

  /** Puts a counter at each key. */
  static void put(Harness h, String... keys) {
    for (String k : keys) {
      h.engine.write(bytes(k), tx -> tx.create(COUNTER, new Counter(), new byte[0]));
    }
  }

  private final Harness h = new Harness();

  @Test
  void del_countsOnlyKeysThatExisted() {
    put(h, "a", "b");
    assertThat(h.show("DEL", "a", "nope", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("EXISTS", "a", "b")).isEqualTo("(integer) 1");
    assertThat(h.show("UNLINK", "b")).isEqualTo("(integer) 1");
    assertThat(h.show("DBSIZE")).isEqualTo("(integer) 0");
  }

  @Test
  void del_withoutKeys_isWrongArity() {
    assertThat(h.show("DEL")).isEqualTo("(error) ERR wrong number of arguments for 'del' command");
    assertThat(h.show("unlink"))
        .isEqualTo("(error) ERR wrong number of arguments for 'unlink' command");
  }

  @Test
  void exists_countsRepeats() {
    put(h, "a");
    assertThat(h.show("EXISTS", "a", "a", "b")).isEqualTo("(integer) 2");
  }

  @Test
  void type_namesTheCodecsType_orNone() {
    put(h, "a");
    assertThat(h.call("TYPE", "a")).isEqualTo(Reply.simple("counter"));
    assertThat(h.call("TYPE", "nope")).isEqualTo(Reply.simple("none"));
  }

  @Test
  void rename_movesTheValue_andOverwrites() {
    put(h, "a", "b");
    assertThat(h.show("RENAME", "a", "b")).isEqualTo("OK");
    assertThat(h.show("EXISTS", "a")).isEqualTo("(integer) 0");
    assertThat(h.show("DBSIZE")).isEqualTo("(integer) 1");
    assertThat(h.show("RENAME", "b", "b")).isEqualTo("OK");
  }

  @Test
  void rename_missingKey_isNoSuchKey() {
    assertThat(h.show("RENAME", "a", "b")).isEqualTo("(error) ERR no such key");
    assertThat(h.show("RENAMENX", "a", "b")).isEqualTo("(error) ERR no such key");
  }

  @Test
  void renamenx_keepsAnExistingTarget() {
    put(h, "a", "b");
    assertThat(h.show("RENAMENX", "a", "b")).isEqualTo("(integer) 0");
    assertThat(h.show("RENAMENX", "a", "c")).isEqualTo("(integer) 1");
    assertThat(h.show("EXISTS", "a", "b", "c")).isEqualTo("(integer) 2");
  }

  @Test
  void scan_visitsEveryKeyOnce_acrossPages() {
    Set<String> all = new HashSet<>();
    for (int i = 0; i < 40; i++) {
      all.add("k" + i);
      put(h, "k" + i);
    }
    List<String> seen = new ArrayList<>();
    String cursor = "0";
    int pages = 0;
    do {
      Reply.Array page = (Reply.Array) h.call("SCAN", cursor, "COUNT", "7");
      cursor = text(page.items().get(0));
      for (Reply k : ((Reply.Array) page.items().get(1)).items()) {
        seen.add(text(k));
      }
      pages++;
    } while (!cursor.equals("0") && pages < 100);
    assertThat(cursor).isEqualTo("0");
    assertThat(pages).isGreaterThan(1);
    assertThat(seen).doesNotHaveDuplicates();
    assertThat(new HashSet<>(seen)).isEqualTo(all);
  }

  @Test
  void scan_matchAndType_filter() {
    put(h, "user:1", "user:2", "job:1");
    assertThat(scanAll("MATCH", "user:*")).containsExactlyInAnyOrder("user:1", "user:2");
    assertThat(scanAll("MATCH", "*")).hasSize(3);
    assertThat(scanAll("TYPE", "COUNTER")).hasSize(3);
    assertThat(scanAll("TYPE", "string")).isEmpty();
  }

  @Test
  void scan_cursorIsAnUnsigned64BitDecimal() {
    assertThat(h.call("SCAN", "18446744073709551615")).isInstanceOf(Reply.Array.class);
    for (String bad : List.of("18446744073709551616", "-1", "x", "", "1.5")) {
      assertThat(h.show("SCAN", bad)).as(bad).isEqualTo("(error) ERR invalid cursor");
    }
  }

  @Test
  void scan_badOptions_areRedisErrors() {
    assertThat(h.show("SCAN", "0", "COUNT", "0")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("SCAN", "0", "COUNT", "x"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
    assertThat(h.show("SCAN", "0", "MATCH")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("SCAN", "0", "FOO", "1")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("SCAN", "0", "NOVALUES"))
        .isEqualTo("(error) ERR NOVALUES option can only be used in HSCAN");
  }

  @Test
  void scan_emptyKeyspace_endsAtOnce() {
    assertThat(h.show("SCAN", "0")).isEqualTo("[\"0\", []]");
  }

  @Test
  void keys_returnsMatchingKeys() {
    put(h, "a1", "a2", "b1");
    List<String> keys = new ArrayList<>();
    for (Reply r : ((Reply.Array) h.call("KEYS", "a?")).items()) {
      keys.add(text(r));
    }
    assertThat(keys).containsExactlyInAnyOrder("a1", "a2");
    assertThat(h.show("KEYS", "z*")).isEqualTo("[]");
  }

  @Test
  void flush_removesEverything_withOrWithoutMode() {
    put(h, "a", "b");
    assertThat(h.show("FLUSHDB")).isEqualTo("OK");
    assertThat(h.show("DBSIZE")).isEqualTo("(integer) 0");
    put(h, "a");
    assertThat(h.show("FLUSHALL", "async")).isEqualTo("OK");
    assertThat(h.show("FLUSHDB", "SYNC")).isEqualTo("OK");
    assertThat(h.show("DBSIZE")).isEqualTo("(integer) 0");
  }

  @Test
  void flush_badMode_isSyntaxError_andKeepsKeys() {
    put(h, "a");
    assertThat(h.show("FLUSHDB", "now")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("FLUSHALL", "SYNC", "ASYNC")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("DBSIZE")).isEqualTo("(integer) 1");
  }

  @Test
  void memoryUsage_isTheEnginesMeasure_orNil() {
    put(h, "a");
    long expected = h.engine.memoryUsage(bytes("a"));
    assertThat(expected).isGreaterThan(16);
    assertThat(h.call("MEMORY", "USAGE", "a")).isEqualTo(Reply.integer(expected));
    assertThat(h.call("memory", "usage", "a", "SAMPLES", "0")).isEqualTo(Reply.integer(expected));
    assertThat(h.show("MEMORY", "USAGE", "nope")).isEqualTo("(nil)");
  }

  @Test
  void memoryUsage_badArguments() {
    put(h, "a");
    assertThat(h.show("MEMORY", "USAGE", "a", "SAMPLES", "-1"))
        .isEqualTo("(error) ERR syntax error");
    assertThat(h.show("MEMORY", "USAGE", "a", "SAMPLES")).isEqualTo("(error) ERR syntax error");
    assertThat(h.show("MEMORY", "USAGE", "a", "SAMPLES", "x"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
    assertThat(h.show("MEMORY", "USAGE"))
        .isEqualTo("(error) ERR wrong number of arguments for 'memory|usage' command");
    assertThat(h.show("MEMORY"))
        .isEqualTo("(error) ERR wrong number of arguments for 'memory' command");
    assertThat(h.show("MEMORY", "STATS"))
        .isEqualTo("(error) ERR unknown subcommand 'STATS'. Try MEMORY HELP.");
  }

  @Test
  void memoryHelp_listsUsage() {
    assertThat(h.show("MEMORY", "HELP"))
        .isEqualTo(
            "[MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:, USAGE key [SAMPLES"
                + " count], "
                + "    Returns the bytes a key and its value take in memory, or nil., HELP, "
                + "    Print this help.]");
  }

  private List<String> scanAll(String... options) {
    List<String> out = new ArrayList<>();
    String cursor = "0";
    do {
      List<String> args = new ArrayList<>(List.of("SCAN", cursor));
      args.addAll(List.of(options));
      Reply.Array page = (Reply.Array) h.call(args.toArray(String[]::new));
      cursor = text(page.items().get(0));
      for (Reply k : ((Reply.Array) page.items().get(1)).items()) {
        out.add(text(k));
      }
    } while (!cursor.equals("0"));
    return out;
  }

  static String text(Reply r) {
    return new String(((Reply.Bulk) r).bytes(), StandardCharsets.UTF_8);
  }
}
