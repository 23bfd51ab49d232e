package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.sketch.CountMinSketch;
import io.idem.server.commands.cms.CmsCodec;
import io.idem.server.reply.Replies;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** CMS.* through the dispatcher: RedisBloom's replies, error texts and order of checks. */
class CmsCommandsTest {

  private final Harness h = new Harness();

  // ---- INITBYDIM, INITBYPROB

  @Test
  void init_byDimensions_andByProbability_asRedisBloomSizesThem() {
    assertThat(h.show("CMS.INITBYDIM", "d", "20", "5")).isEqualTo("OK");
    assertThat(h.show("CMS.INFO", "d"))
        .isEqualTo("{width=(integer) 20, depth=(integer) 5, count=(integer) 0}");
    assertThat(h.show("CMS.INITBYPROB", "p", "0.001", "0.01")).isEqualTo("OK");
    assertThat(h.show("CMS.INFO", "p")).startsWith("{width=(integer) 2000, depth=(integer) 7");
    // Depth from single-precision logs, as RedisBloom: 0.03125 = 2^-5 gives 5, 1e-10 gives 34.
    h.call("CMS.INITBYPROB", "p2", "0.3", "0.03125");
    assertThat(h.show("CMS.INFO", "p2")).startsWith("{width=(integer) 7, depth=(integer) 5");
    h.call("CMS.INITBYPROB", "p3", "0.002", "1e-10");
    assertThat(h.show("CMS.INFO", "p3")).startsWith("{width=(integer) 1000, depth=(integer) 34");
    assertThat(h.show("TYPE", "d")).isEqualTo("CMSk-TYPE");
  }

  @Test
  void init_errors_inRedisBloomsOrder() {
    h.call("CMS.INITBYDIM", "d", "20", "5");
    h.call("BF.ADD", "bf", "x");
    // An existing key, of any type, before the arguments are read.
    assertThat(h.show("CMS.INITBYDIM", "d", "0", "0")).isEqualTo("(error) CMS: key already exists");
    assertThat(h.show("CMS.INITBYPROB", "bf", "x", "y"))
        .isEqualTo("(error) CMS: key already exists");
    for (String bad : new String[] {"0", "-1", "1.5", "05", "+3", "x", ""}) {
      assertThat(h.show("CMS.INITBYDIM", "n", bad, "5"))
          .as(bad)
          .isEqualTo("(error) CMS: invalid width");
      assertThat(h.show("CMS.INITBYDIM", "n", "5", bad))
          .as(bad)
          .isEqualTo("(error) CMS: invalid depth");
    }
    for (String bad : new String[] {"0", "1", "-0.1", "1.5", "x", "nan", " 0.1"}) {
      assertThat(h.show("CMS.INITBYPROB", "n", bad, "0.1"))
          .as(bad)
          .isEqualTo("(error) CMS: invalid overestimation value");
      assertThat(h.show("CMS.INITBYPROB", "n", "0.1", bad))
          .as(bad)
          .isEqualTo("(error) CMS: invalid prob value");
    }
    assertThat(h.show("CMS.INITBYPROB", "n", "0.01", "0.9999999999999999"))
        .isEqualTo("(error) CMS: invalid init arguments"); // depth rounds to 0
    assertThat(h.show("CMS.INITBYPROB", "n", "0.0000000000000000001", "0.5"))
        .isEqualTo("(error) CMS: invalid init arguments"); // width past 2^63
    assertThat(h.show("CMS.INITBYDIM", "n", "100000000000000", "100000000000000"))
        .isEqualTo("(error) CMS: invalid init arguments");
    assertThat(h.show("CMS.INITBYDIM", "n", "1000000000", "1000000000"))
        .isEqualTo("(error) CMS: Insufficient memory to create the key");
    assertThat(h.show("CMS.INITBYPROB", "n", "1e-16", "1e-16"))
        .isEqualTo("(error) CMS: Insufficient memory to create the key");
    h.engine.setMaxMemory(h.engine.usedMemory() + 1000);
    assertThat(h.show("CMS.INITBYDIM", "n", "1000", "5"))
        .isEqualTo("(error) CMS: Insufficient memory to create the key");
    h.engine.setMaxMemory(0);
    assertThat(h.show("CMS.INITBYDIM", "n", "5"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cms.initbydim' command");
    assertThat(h.show("EXISTS", "n")).isEqualTo("(integer) 0");
  }

  // ---- INCRBY, QUERY

  @Test
  void incrby_repliesEachEstimateAfterItsOwnIncrement_andQueryReadsThem() {
    h.call("CMS.INITBYDIM", "c", "2000", "7");
    assertThat(h.show("CMS.INCRBY", "c", "foo", "1")).isEqualTo("[(integer) 1]");
    assertThat(h.show("CMS.INCRBY", "c", "foo", "1", "bar", "1"))
        .isEqualTo("[(integer) 2, (integer) 1]");
    assertThat(h.show("CMS.INCRBY", "c", "baz", "40", "baz", "2", "zero", "0"))
        .isEqualTo("[(integer) 40, (integer) 42, (integer) 0]");
    assertThat(h.show("CMS.QUERY", "c", "foo", "bar", "baz", "never"))
        .isEqualTo("[(integer) 2, (integer) 1, (integer) 42, (integer) 0]");
    assertThat(h.show("CMS.INFO", "c")).endsWith("count=(integer) 45}");
    byte[] binary = {0, (byte) 0xff, '\r', '\n'};
    h.call("CMS.INCRBY".getBytes(StandardCharsets.UTF_8), b("c"), binary, b("3"));
    assertThat(Replies.show(h.call(b("CMS.QUERY"), b("c"), binary))).isEqualTo("[(integer) 3]");
  }

  @Test
  void incrby_countersSaturate_andSayOverflowInTheArray() {
    h.call("CMS.INITBYDIM", "c", "50", "2");
    assertThat(h.show("CMS.INCRBY", "c", "a", "2147483647", "b", "10"))
        .isEqualTo("[(integer) 2147483647, (integer) 10]");
    assertThat(h.show("CMS.INCRBY", "c", "a", "2147483647")).isEqualTo("[(integer) 4294967294]");
    assertThat(h.show("CMS.INCRBY", "c", "a", "2147483647", "b", "1"))
        .isEqualTo("[(error) CMS: INCRBY overflow, (integer) 11]");
    assertThat(h.show("CMS.QUERY", "c", "a")).isEqualTo("[(integer) 4294967295]");
    // Reaching the limit exactly, without wrapping, is an overflow too.
    assertThat(h.show("CMS.INCRBY", "c", "exact", "4294967295"))
        .isEqualTo("[(error) CMS: INCRBY overflow]");
    assertThat(h.show("CMS.INFO", "c"))
        .endsWith("count=(integer) " + (3L * 2147483647 + 11 + 4294967295L) + "}");
  }

  @Test
  void incrbyAndQuery_errors_changeNothing() {
    h.call("CMS.INITBYDIM", "c", "50", "2");
    h.call("BF.ADD", "bf", "x");
    assertThat(h.show("CMS.INCRBY", "c", "a", "1", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cms.incrby' command");
    assertThat(h.show("CMS.INCRBY", "missing", "a", "1"))
        .isEqualTo("(error) CMS: key does not exist");
    assertThat(h.show("CMS.INCRBY", "bf", "a", "1"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    assertThat(h.show("CMS.INCRBY", "c", "a", "-1", "b", "x"))
        .isEqualTo("(error) CMS: Number cannot be negative");
    assertThat(h.show("CMS.INCRBY", "c", "a", "x", "b", "-1"))
        .isEqualTo("(error) CMS: Cannot parse number");
    assertThat(h.show("CMS.INCRBY", "c", "a", "5", "b", "1.5"))
        .isEqualTo("(error) CMS: Cannot parse number");
    assertThat(h.show("CMS.QUERY", "c", "a")).isEqualTo("[(integer) 0]"); // a's 5 was not added
    assertThat(h.show("CMS.QUERY", "missing", "a")).isEqualTo("(error) CMS: key does not exist");
    assertThat(h.show("CMS.QUERY", "c"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cms.query' command");
    assertThat(h.show("CMS.INFO", "missing")).isEqualTo("(error) CMS: key does not exist");
    assertThat(h.show("CMS.INFO", "bf"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  }

  // ---- MERGE

  @Test
  void merge_weightedSum_overwritesTheDestination_whichMayBeASource() throws Exception {
    for (String k : new String[] {"a", "b", "d"}) {
      h.call("CMS.INITBYDIM", k, "500", "4");
    }
    h.call("CMS.INCRBY", "a", "x", "10");
    h.call("CMS.INCRBY", "b", "x", "3", "y", "5");
    h.call("CMS.INCRBY", "d", "z", "99");
    assertThat(h.show("CMS.MERGE", "d", "2", "a", "b")).isEqualTo("OK");
    assertThat(h.show("CMS.QUERY", "d", "x", "y", "z"))
        .isEqualTo("[(integer) 13, (integer) 5, (integer) 0]");
    assertThat(h.show("CMS.MERGE", "d", "2", "a", "b", "WEIGHTS", "2", "1")).isEqualTo("OK");
    assertThat(h.show("CMS.QUERY", "d", "x")).isEqualTo("[(integer) 23]");
    assertThat(h.show("CMS.INFO", "d")).endsWith("count=(integer) 28}");
    // In place, subtracting: d - b.
    assertThat(h.show("CMS.MERGE", "d", "2", "d", "b", "weights", "1", "-1")).isEqualTo("OK");
    assertThat(h.show("CMS.QUERY", "d", "x", "y")).isEqualTo("[(integer) 20, (integer) 0]");
    // Again would take y below 0: refused, nothing changes.
    byte[] before = state("d");
    assertThat(h.show("CMS.MERGE", "d", "2", "d", "b", "WEIGHTS", "1", "-1"))
        .isEqualTo("(error) CMS: MERGE overflow");
    assertThat(h.show("CMS.MERGE", "d", "1", "a", "WEIGHTS", "9223372036854775807"))
        .isEqualTo("(error) CMS: MERGE overflow");
    assertThat(state("d")).isEqualTo(before);
    // RedisBloom's own cases: 64-bit sums that come back in range are fine.
    h.call("CMS.INITBYDIM", "four", "500", "4");
    h.call("CMS.INCRBY", "four", "x", "4");
    assertThat(
            h.show(
                "CMS.MERGE",
                "d",
                "2",
                "four",
                "four",
                "WEIGHTS",
                "-922337203685477500",
                "922337203685477502"))
        .isEqualTo("OK");
    assertThat(h.show("CMS.QUERY", "d", "x")).isEqualTo("[(integer) 8]");
    assertThat(
            h.show(
                "CMS.MERGE",
                "d",
                "2",
                "four",
                "four",
                "WEIGHTS",
                "9223372036854775807",
                "-4000000000"))
        .isEqualTo("(error) CMS: MERGE overflow");
  }

  @Test
  void merge_errors_inRedisBloomsOrder() {
    h.call("CMS.INITBYDIM", "d", "500", "4");
    h.call("CMS.INITBYDIM", "a", "500", "4");
    h.call("CMS.INITBYDIM", "small", "50", "4");
    h.call("BF.ADD", "bf", "x");
    assertThat(h.show("CMS.MERGE", "d", "1"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cms.merge' command");
    assertThat(h.show("CMS.MERGE", "missing", "x", "a"))
        .isEqualTo("(error) CMS: key does not exist");
    assertThat(h.show("CMS.MERGE", "bf", "1", "a"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    assertThat(h.show("CMS.MERGE", "d", "x", "a")).isEqualTo("(error) CMS: invalid numkeys");
    assertThat(h.show("CMS.MERGE", "d", "0", "weights"))
        .isEqualTo("(error) CMS: Number of keys must be positive");
    assertThat(h.show("CMS.MERGE", "d", "2", "a")).isEqualTo("(error) CMS: wrong number of keys");
    assertThat(h.show("CMS.MERGE", "d", "1", "a", "WEIGHTS"))
        .isEqualTo("(error) CMS: wrong number of keys/weights");
    assertThat(h.show("CMS.MERGE", "d", "1", "a", "b", "WEIGHTS", "1"))
        .isEqualTo("(error) CMS: wrong number of keys/weights");
    assertThat(h.show("CMS.MERGE", "d", "1", "weights"))
        .isEqualTo("(error) CMS: wrong number of keys/weights"); // a key named weights
    // Source by source: its weight, then its key, then its shape.
    assertThat(h.show("CMS.MERGE", "d", "2", "a", "nope", "WEIGHTS", "1", "1.5"))
        .isEqualTo("(error) CMS: invalid weight value");
    assertThat(h.show("CMS.MERGE", "d", "2", "nope", "a", "WEIGHTS", "1", "1.5"))
        .isEqualTo("(error) CMS: key does not exist");
    assertThat(h.show("CMS.MERGE", "d", "2", "a", "bf"))
        .isEqualTo("(error) WRONGTYPE Operation against a key holding the wrong kind of value");
    assertThat(h.show("CMS.MERGE", "d", "2", "small", "nope"))
        .isEqualTo("(error) CMS: width/depth is not equal");
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private byte[] state(String key) throws Exception {
    return bytes(h.engine.read(b(key), e -> (CountMinSketch) e.value()));
  }

  // ---- durability

  @Test
  void replayingTheLog_rebuildsTheSketchByteForByte() throws Exception {
    CuckooCodecTest.Recording journal = new CuckooCodecTest.Recording();
    h.engine.attach(journal);
    h.call("CMS.INITBYDIM", "c", "40", "3");
    h.call("CMS.INITBYDIM", "o", "40", "3");
    h.call("CMS.INCRBY", "c", "a", "5", "b", "7", "a", "1");
    h.call("CMS.INCRBY", "o", "a", "2");
    h.call("CMS.MERGE", "c", "2", "c", "o", "WEIGHTS", "3", "1");
    h.call("CMS.INCRBY", "c", "z", "4294967295");
    h.call("CMS.INCRBY", "c", "bad", "x"); // refused: not logged
    CuckooCodecTest.Logged logged = journal.of(h, "c");
    CountMinSketch replayed = logged.replay(CmsCodec.INSTANCE);
    assertThat(bytes(replayed))
        .isEqualTo(bytes(h.engine.read(b("c"), e -> (CountMinSketch) e.value())));
    assertThat(logged.ops()).hasSize(3);
  }

  private static byte[] bytes(CountMinSketch s) throws Exception {
    return CuckooCodecTest.written(CmsCodec.INSTANCE, s);
  }
}
