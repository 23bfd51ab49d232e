package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.sketch.TopK;
import io.idem.server.commands.topk.TopkCodec;
import org.junit.jupiter.api.Test;

/** TOPK.* through the dispatcher: RedisBloom's replies, error texts and order of checks. */
class TopkCommandsTest {

  private static final String BAD_INCREMENT =
      "(error) TopK: increment must be an integer greater or equal to 0"
          + " ".repeat(28)
          + "and smaller or equal to 100,000";

  private final Harness h = new Harness();

  @Test
  void reserve_withDefaultsOrGiven_andInfo() {
    assertThat(h.show("TOPK.RESERVE", "t", "3")).isEqualTo("OK");
    assertThat(h.show("TOPK.INFO", "t"))
        .isEqualTo("{k=(integer) 3, width=(integer) 8, depth=(integer) 7, decay=(double) 0.9}");
    assertThat(h.show("TOPK.RESERVE", "u", "50", "2000", "5", ".5")).isEqualTo("OK");
    assertThat(h.show("TOPK.INFO", "u"))
        .isEqualTo("{k=(integer) 50, width=(integer) 2000, depth=(integer) 5, decay=(double) 0.5}");
    assertThat(h.show("TYPE", "u")).isEqualTo("TopK-TYPE");
  }

  @Test
  void reserve_errors_inRedisBloomsOrder() {
    h.call("TOPK.RESERVE", "t", "3");
    h.call("BF.ADD", "bf", "x");
    assertThat(h.show("TOPK.RESERVE", "t", "x")).isEqualTo("(error) TopK: key already exists");
    assertThat(h.show("TOPK.RESERVE", "bf", "3")).isEqualTo("(error) TopK: key already exists");
    for (String bad : new String[] {"0", "-1", "1.5", "x", "", "4294967296"}) {
      assertThat(h.show("TOPK.RESERVE", "n", bad)).as(bad).isEqualTo("(error) TopK: invalid k");
      assertThat(h.show("TOPK.RESERVE", "n", "3", bad, "5", "0.9"))
          .as(bad)
          .isEqualTo("(error) TopK: invalid width");
      assertThat(h.show("TOPK.RESERVE", "n", "3", "8", bad, "0.9"))
          .as(bad)
          .isEqualTo("(error) TopK: invalid depth");
    }
    for (String bad : new String[] {"0", "1.01", "42", "-0.5", "x", "nan", " 0.9"}) {
      assertThat(h.show("TOPK.RESERVE", "n", "3", "8", "7", bad))
          .as(bad)
          .isEqualTo("(error) TopK: invalid decay value. must be '<= 1' & '> 0'");
    }
    assertThat(h.show("TOPK.RESERVE", "n", "3", "2000000000", "200000000", "1"))
        .isEqualTo("(error) ERR Insufficient memory to create topk data structure");
    assertThat(h.show("TOPK.RESERVE", "n", "4294967295"))
        .isEqualTo("(error) ERR Insufficient memory to create topk data structure");
    assertThat(h.show("TOPK.RESERVE", "n", "3", "8"))
        .isEqualTo("(error) ERR wrong number of arguments for 'topk.reserve' command");
    assertThat(h.show("TOPK.RESERVE", "n"))
        .isEqualTo("(error) ERR wrong number of arguments for 'topk.reserve' command");
    assertThat(h.show("EXISTS", "n")).isEqualTo("(integer) 0");
  }

  @Test
  void addAndIncrby_replyWhatTheyExpelled_asRedisBloomsExample() {
    h.call("TOPK.RESERVE", "t", "3", "1000", "3", "1");
    assertThat(h.show("TOPK.INCRBY", "t", "bar", "3", "baz", "6", "42", "2"))
        .isEqualTo("[(nil), (nil), (nil)]");
    assertThat(h.show("TOPK.INCRBY", "t", "42", "8", "xyzzy", "4")).isEqualTo("[(nil), \"bar\"]");
    assertThat(h.show("TOPK.COUNT", "t", "bar", "baz", "42", "xyzzy", "4"))
        .isEqualTo("[(integer) 3, (integer) 6, (integer) 10, (integer) 4, (integer) 0]");
    assertThat(h.show("TOPK.QUERY", "t", "42", "bar", "nope"))
        .isEqualTo("[(true), (false), (false)]"); // RESP2 sends 1 and 0
    assertThat(h.show("TOPK.LIST", "t")).isEqualTo("[\"42\", \"baz\", \"xyzzy\"]");
    assertThat(h.show("TOPK.LIST", "t", "WITHCOUNT"))
        .isEqualTo("[\"42\", (integer) 10, \"baz\", (integer) 6, \"xyzzy\", (integer) 4]");
    assertThat(h.show("TOPK.ADD", "t", "a", "xyzzy", "xyzzy"))
        .isEqualTo("[(nil), (nil), (nil)]"); // a is below the least; xyzzy rises in place
    assertThat(h.show("TOPK.LIST", "t", "withc"))
        .isEqualTo("[\"42\", (integer) 10, \"baz\", (integer) 6, \"xyzzy\", (integer) 6]");
  }

  @Test
  void errors() {
    h.call("TOPK.RESERVE", "t", "3");
    h.call("BF.ADD", "bf", "x");
    for (String[] c :
        new String[][] {
          {"TOPK.ADD", "none", "a"},
          {"TOPK.INCRBY", "none", "a", "1"},
          {"TOPK.QUERY", "none", "a"},
          {"TOPK.COUNT", "none", "a"},
          {"TOPK.LIST", "none"},
          {"TOPK.INFO", "none"}
        }) {
      assertThat(h.show(c)).as(c[0]).isEqualTo("(error) TopK: key does not exist");
      c[1] = "bf";
      assertThat(h.show(c)).as(c[0]).startsWith("(error) WRONGTYPE");
    }
    assertThat(h.show("EXISTS", "none")).isEqualTo("(integer) 0");
    // A bad increment is that item's error inside the reply; the other items are counted.
    for (String bad : new String[] {"-1", "100001", "x", "1.5"}) {
      assertThat(h.show("TOPK.INCRBY", "t", "a", "5", "b", bad))
          .as(bad)
          .isEqualTo("[(nil), " + BAD_INCREMENT + "]");
    }
    assertThat(h.show("TOPK.COUNT", "t", "a", "b")).isEqualTo("[(integer) 20, (integer) 0]");
    assertThat(h.show("TOPK.INCRBY", "t", "a", "100000", "b", "0")).isEqualTo("[(nil), (nil)]");
    assertThat(h.show("TOPK.INCRBY", "t", "a", "5", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'topk.incrby' command");
    assertThat(h.show("TOPK.LIST", "none", "WITHCOUNTS"))
        .isEqualTo("(error) WITHCOUNT keyword expected"); // before the key
    // "" prefixes WITHCOUNT; b's count is 0, so b is not listed.
    assertThat(h.show("TOPK.LIST", "t", "")).isEqualTo("[\"a\", (integer) 100020]");
    assertThat(h.show("TOPK.LIST", "t", "WITHCOUNT", "x"))
        .isEqualTo("(error) ERR wrong number of arguments for 'topk.list' command");
    assertThat(h.show("TOPK.ADD", "t"))
        .isEqualTo("(error) ERR wrong number of arguments for 'topk.add' command");
  }

  @Test
  void itemsAreBinarySafe() {
    h.call("TOPK.RESERVE", "t", "2", "100", "3", "0.9");
    byte[] item = {'a', 0, 'b', (byte) 0xff};
    h.call(Harness.bytes("TOPK.ADD"), Harness.bytes("t"), item);
    io.idem.server.reply.Reply.Array list =
        (io.idem.server.reply.Reply.Array) h.call("TOPK.LIST", "t");
    assertThat(list.items()).hasSize(1);
    assertThat(((io.idem.server.reply.Reply.Bulk) list.items().getFirst()).bytes()).isEqualTo(item);
    assertThat(h.call(Harness.bytes("TOPK.QUERY"), Harness.bytes("t"), item, new byte[] {'a'}))
        .hasToString("Array[items=[Bool[value=true], Bool[value=false]]]");
  }

  @Test
  void replayingTheLog_rebuildsTheSketchByteForByte() throws Exception {
    CuckooCodecTest.Recording journal = new CuckooCodecTest.Recording();
    h.engine.attach(journal);
    h.call("TOPK.RESERVE", "t", "3", "4", "2", "0.8"); // narrow: collisions flip coins
    for (int i = 0; i < 40; i++) {
      h.call("TOPK.ADD", "t", "item-" + i % 7, "item-" + i % 3);
      h.call("TOPK.INCRBY", "t", "item-" + i % 5, Integer.toString(i));
    }
    h.call("TOPK.INCRBY", "t", "x", "-1"); // refused: not logged
    CuckooCodecTest.Logged logged = journal.of(h, "t");
    TopK replayed = logged.replay(TopkCodec.INSTANCE);
    assertThat(bytes(replayed))
        .isEqualTo(bytes(h.engine.read(Harness.bytes("t"), e -> (TopK) e.value())));
    assertThat(logged.ops()).hasSize(80);
  }

  private static byte[] bytes(TopK t) throws Exception {
    return CuckooCodecTest.written(TopkCodec.INSTANCE, t);
  }
}
