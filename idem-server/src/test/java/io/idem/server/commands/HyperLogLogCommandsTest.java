package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.sketch.HyperLogLog;
import io.idem.server.commands.hll.HllCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** PFADD, PFCOUNT, PFMERGE through the dispatcher: Redis's replies, its type checks, the log. */
class HyperLogLogCommandsTest {

  private static final String WRONGTYPE =
      "(error) WRONGTYPE Operation against a key holding the wrong kind of value";

  private final Harness h = new Harness();

  private static String[] add(String key, int from, int to) {
    List<String> words = new ArrayList<>(List.of("PFADD", key));
    for (int i = from; i < to; i++) {
      words.add("user-" + i);
    }
    return words.toArray(String[]::new);
  }

  private long count(String... keys) {
    List<String> words = new ArrayList<>(List.of("PFCOUNT"));
    words.addAll(List.of(keys));
    String shown = h.show(words.toArray(String[]::new));
    assertThat(shown).startsWith("(integer) ");
    return Long.parseLong(shown.substring("(integer) ".length()));
  }

  @Test
  void pfadd_repliesOneWhenARegisterRoseOrTheKeyWasMade() {
    assertThat(h.show("PFADD", "k")).isEqualTo("(integer) 1"); // made, empty
    assertThat(h.show("PFADD", "k")).isEqualTo("(integer) 0");
    assertThat(count("k")).isZero();
    assertThat(h.show("PFADD", "k", "a", "b", "c")).isEqualTo("(integer) 1");
    assertThat(h.show("PFADD", "k", "a", "b", "c")).isEqualTo("(integer) 0");
    assertThat(h.show("PFADD", "k", "b", "a")).isEqualTo("(integer) 0");
    assertThat(count("k")).isEqualTo(3);
    assertThat(h.show("TYPE", "k")).isEqualTo("string");
    assertThat(h.show("PFADD", "k2", "a", "a", "a")).isEqualTo("(integer) 1");
    assertThat(count("k2")).isEqualTo(1);
  }

  @Test
  void pfcount_isWithinItsErrorForOneKey_andCountsTheUnionOfSeveral() {
    h.call(add("a", 0, 30_000));
    h.call(add("b", 20_000, 50_000));
    double rse = 1.04 / Math.sqrt(16384);
    assertThat(count("a"))
        .isBetween((long) (30_000 * (1 - 3 * rse)), (long) (30_000 * (1 + 3 * rse)));
    assertThat(count("a", "b"))
        .isBetween((long) (50_000 * (1 - 3 * rse)), (long) (50_000 * (1 + 3 * rse)));
    assertThat(count("a", "missing", "b")).isEqualTo(count("a", "b"));
    assertThat(count("missing")).isZero();
    assertThat(count("missing", "other")).isZero();
    assertThat(count("a", "a")).isEqualTo(count("a"));
    // Counting several keys changes none of them.
    assertThat(h.show("EXISTS", "missing")).isEqualTo("(integer) 0");
    h.call(add("c", 100_000, 101_000));
    assertThat(count("c", "a")).isGreaterThan(count("a"));
    assertThat(count("c")).isBetween(990L, 1010L);
  }

  @Test
  void pfmerge_foldsSourcesAndItselfIntoTheDestination_creatingIt() {
    h.call(add("a", 0, 1000));
    h.call(add("b", 500, 1500));
    assertThat(h.show("PFMERGE", "d", "a", "b", "missing")).isEqualTo("OK");
    assertThat(count("d")).isEqualTo(count("a", "b"));
    h.call(add("e", 5000, 5100));
    assertThat(h.show("PFMERGE", "e", "a")).isEqualTo("OK"); // the destination stays in
    assertThat(count("e")).isEqualTo(count("a", "e")).isGreaterThan(count("a"));
    assertThat(h.show("PFMERGE", "only")).isEqualTo("OK");
    assertThat(h.show("TYPE", "only")).isEqualTo("string");
    assertThat(count("only")).isZero();
    assertThat(h.show("PFMERGE", "d", "d")).isEqualTo("OK");
    assertThat(count("d")).isEqualTo(count("a", "b"));
  }

  @Test
  void otherTypes_areWrongType_andChangeNothing() {
    h.call("CMS.INITBYDIM", "cms", "10", "2");
    h.call("PFADD", "a", "x");
    assertThat(h.show("PFADD", "cms", "x")).isEqualTo(WRONGTYPE);
    assertThat(h.show("PFCOUNT", "cms")).isEqualTo(WRONGTYPE);
    assertThat(h.show("PFCOUNT", "a", "cms")).isEqualTo(WRONGTYPE);
    assertThat(h.show("PFMERGE", "cms", "a")).isEqualTo(WRONGTYPE);
    assertThat(h.show("PFMERGE", "new", "a", "cms")).isEqualTo(WRONGTYPE);
    assertThat(h.show("EXISTS", "new")).isEqualTo("(integer) 0");
    assertThat(h.show("PFADD"))
        .isEqualTo("(error) ERR wrong number of arguments for 'pfadd' command");
    assertThat(h.show("PFCOUNT"))
        .isEqualTo("(error) ERR wrong number of arguments for 'pfcount' command");
    assertThat(h.show("PFMERGE"))
        .isEqualTo("(error) ERR wrong number of arguments for 'pfmerge' command");
  }

  @Test
  void replayingTheLog_rebuildsTheSketchByteForByte() throws Exception {
    CuckooCodecTest.Recording journal = new CuckooCodecTest.Recording();
    h.engine.attach(journal);
    h.call("PFADD", "k", "a", "b");
    h.call("PFADD", "k", "a"); // no register rose: not logged
    h.call(add("o", 0, 3000)); // dense
    h.call("PFMERGE", "k", "o");
    h.call(add("k", 4000, 4500));
    CuckooCodecTest.Logged logged = journal.of(h, "k");
    HyperLogLog replayed = logged.replay(HllCodec.INSTANCE);
    HyperLogLog live = h.engine.read(b("k"), e -> (HyperLogLog) e.value());
    assertThat(bytes(replayed)).isEqualTo(bytes(live));
    assertThat(logged.ops()).hasSize(3);
    // A snapshot reads back the same.
    assertThat(
            bytes(
                HllCodec.INSTANCE.read(
                    new java.io.ByteArrayInputStream(bytes(live)), Long.MAX_VALUE)))
        .isEqualTo(bytes(live));
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(HyperLogLog s) throws Exception {
    return CuckooCodecTest.written(HllCodec.INSTANCE, s);
  }
}
