package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.RedisBloomChain;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.commands.bloom.RedisBloomCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The layout of new Bloom filters: RedisBloom's classic one unless bf-layout says blocked. Sizes
 * against RedisBloom's own replies are in RedisBloomRepliesTest, chunks in RedisBloomMigrationTest.
 */
class BloomLayoutTest {

  private final Harness h = new Harness();

  @Test
  void newFilters_takeTheConfiguredLayout_andKeepTheirsWhenItChanges() {
    h.call("BF.RESERVE", "r", "0.01", "1000");
    h.call("BF.ADD", "a", "x");
    h.call("BF.INSERT", "i", "ITEMS", "x");
    for (String k : List.of("r", "a", "i")) {
      assertThat(h.show("BF.INFO", k, "LAYOUT")).as(k).isEqualTo("[\"classic\"]");
      assertThat(h.engine.<Object>read(bytes(k), e -> e.codec()))
          .isEqualTo(RedisBloomCodec.INSTANCE);
      assertThat(h.engine.type(bytes(k))).isEqualTo("MBbloom--");
    }
    assertThat(h.show("CONFIG", "GET", "bf-layout")).isEqualTo("{\"bf-layout\"=\"classic\"}");

    assertThat(h.show("CONFIG", "SET", "bf-layout", "blocked")).isEqualTo("OK");
    h.call("BF.ADD", "b", "x");
    assertThat(h.show("BF.INFO", "b", "LAYOUT")).isEqualTo("[\"blocked\"]");
    assertThat(h.engine.<Object>read(bytes("b"), e -> e.codec())).isEqualTo(BloomCodec.INSTANCE);
    assertThat(h.show("BF.INFO", "a", "LAYOUT")).isEqualTo("[\"classic\"]");
    assertThat(h.show("BF.ADD", "a", "y")).isEqualTo("(integer) 1"); // still answers
    assertThat(h.show("CONFIG", "SET", "bf-layout", "other"))
        .startsWith("(error) ERR CONFIG SET failed");
  }

  @Test
  void classic_buildsEveryRateAsAsked() {
    // Far below what the blocked layout builds: RedisBloom accepts it, and so does Idem.
    assertThat(h.show("BF.RESERVE", "k", "1e-20", "100")).isEqualTo("OK");
    assertThat(h.show("BF.INFO", "k", "ERROR")).isEqualTo("[(double) 1.0E-20]");
    // RedisBloom 2.6.28's BF.DEBUG for the same BF.RESERVE, word for word.
    assertThat(h.show("BF.DEBUG", "k"))
        .isEqualTo(
            "[\"size:0\", \"bytes:1224 bits:9792 hashes:68 hashwidth:64 capacity:100 size:0"
                + " ratio:5e-21\"]");
    assertThat(h.show("BF.ADD", "k", "x")).isEqualTo("(integer) 1");
    assertThat(h.show("BF.EXISTS", "k", "x")).isEqualTo("(integer) 1");
    assertThat(h.show("BF.EXISTS", "k", "y")).isEqualTo("(integer) 0");
  }

  @Test
  void blocked_refusesARateItWouldRaise_andCreatesNothing() {
    h.call("CONFIG", "SET", "bf-layout", "blocked");
    String refused =
        "(error) ERR error rate too low for bf-layout blocked (a layer's rate must be at least"
            + " 1e-15); use bf-layout classic";
    // A scaling filter's first layer takes half the rate: 1.5e-15 would be built at 7.5e-16.
    assertThat(h.show("BF.RESERVE", "k", "1.5e-15", "100")).isEqualTo(refused);
    assertThat(h.show("BF.INSERT", "k", "ERROR", "1e-16", "ITEMS", "x")).isEqualTo(refused);
    assertThat(h.show("BF.RESERVE", "k", "1e-16", "100", "NONSCALING")).isEqualTo(refused);
    assertThat(h.show("EXISTS", "k")).isEqualTo("(integer) 0");
    assertThat(h.show("BF.RESERVE", "k", "2e-15", "100")).isEqualTo("OK");
    assertThat(h.show("BF.RESERVE", "n", "1e-15", "100", "NONSCALING")).isEqualTo("OK");
  }

  @Test
  void classic_overMaxmemory_isRefused_andTheKeyStaysFree() {
    h.engine.setMaxMemory(100_000);
    assertThat(h.show("BF.RESERVE", "k", "0.01", "1000000"))
        .isEqualTo("(error) ERR Insufficient memory to create filter");
    assertThat(h.show("BF.ADD", "k", "x")).isEqualTo("(integer) 1"); // 100 items fit
    assertThat(h.show("BF.RESERVE", "big", "0.01", "1073741824"))
        .isEqualTo("(error) ERR Insufficient memory to create filter");
    assertThat(h.show("EXISTS", "big")).isEqualTo("(integer) 0");
  }

  @Test
  void classic_mexists_answersAsExistsDoes_acrossLinks() {
    h.call("BF.RESERVE", "k", "0.05", "300", "EXPANSION", "2");
    SplittableRandom r = new SplittableRandom(31);
    List<String> added = new ArrayList<>(List.of("BF.MADD", "k"));
    for (int i = 0; i < 2000; i++) {
      added.add("in-" + r.nextInt(1_000_000));
    }
    h.call(added.toArray(String[]::new));
    assertThat(h.show("BF.INFO", "k", "FILTERS")).isEqualTo("[(integer) 3]");
    List<String> probe = new ArrayList<>(List.of("BF.MEXISTS", "k"));
    StringBuilder each = new StringBuilder("[");
    for (int i = 0; i < 3000; i++) {
      // Present and absent items mixed, so groups lose members at different probes and links.
      String item = i % 3 == 0 ? added.get(2 + r.nextInt(2000)) : "out-" + i;
      probe.add(item);
      each.append(i == 0 ? "" : ", ").append(h.show("BF.EXISTS", "k", item));
    }
    String batched = h.show(probe.toArray(String[]::new));
    assertThat(batched).isEqualTo(each.append("]").toString());
    assertThat(batched).contains("(integer) 0").contains("(integer) 1");
  }

  @Test
  void classic_scanDump_isRedisBloomsFormat_andLoadsIntoAFreeKey() {
    h.call("BF.RESERVE", "k", "0.01", "500");
    for (int i = 0; i < 700; i++) {
      h.call("BF.ADD", "k", "item-" + i);
    }
    List<byte[][]> pieces = new ArrayList<>();
    long it = 0;
    while (true) {
      var reply = (io.idem.server.reply.Reply.Array) h.call("BF.SCANDUMP", "k", Long.toString(it));
      it = ((io.idem.server.reply.Reply.Int) reply.items().get(0)).value();
      if (it == 0) {
        break;
      }
      byte[] data = ((io.idem.server.reply.Reply.Bulk) reply.items().get(1)).bytes();
      pieces.add(new byte[][] {bytes(Long.toString(it)), data});
    }
    // The header is RedisBloom's: a chain of two links, with no Idem magic.
    RedisBloomChain parsed;
    try {
      parsed = RedisBloomChain.fromHeader(pieces.getFirst()[1], n -> true);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertThat(parsed.linkCount()).isEqualTo(2);
    for (byte[][] p : pieces) {
      h.call(bytes("BF.LOADCHUNK"), bytes("copy"), p[0], p[1]);
    }
    for (int i = 0; i < 700; i++) {
      assertThat(h.show("BF.EXISTS", "copy", "item-" + i)).isEqualTo("(integer) 1");
    }
    assertThat(h.show("BF.CARD", "copy")).isEqualTo(h.show("BF.CARD", "k"));
  }
}
