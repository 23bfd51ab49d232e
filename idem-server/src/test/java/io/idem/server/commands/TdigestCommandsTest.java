package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.sketch.TDigest;
import io.idem.server.commands.tdigest.TdigestCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * TDIGEST.* through the dispatcher: RedisBloom's replies (the examples of its documentation and
 * tests), error texts and order of checks, and a log that replays to the same digests.
 */
class TdigestCommandsTest {

  private static final String NOT_FOUND = "(error) ERR T-Digest: key does not exist";
  private static final String WRONGTYPE =
      "(error) WRONGTYPE Operation against a key holding the wrong kind of value";
  private static final String ONE_TO_FIVE = "1 2 2 3 3 3 4 4 4 4 5 5 5 5 5";

  private final Harness h = new Harness();

  private String show(String command) {
    return h.show(command.split(" "));
  }

  @Test
  void create_withDefaultsOrGiven_andInfo_andType() {
    assertThat(show("TDIGEST.CREATE t")).isEqualTo("OK");
    assertThat(show("TDIGEST.ADD t 1 2 3 4 5")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO t"))
        .isEqualTo(
            "{Compression=(integer) 100, Capacity=(integer) 610, Merged nodes=(integer) 0,"
                + " Unmerged nodes=(integer) 5, Merged weight=(integer) 0,"
                + " Unmerged weight=(integer) 5, Observations=(integer) 5,"
                + " Total compressions=(integer) 0, Memory usage=(integer) 384}");
    assertThat(show("TYPE t")).isEqualTo("TDIS-TYPE");
    assertThat(show("TDIGEST.CREATE u compression 1000")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO u"))
        .startsWith("{Compression=(integer) 1000, Capacity=(integer) 6010,");
    // RedisBloom finds the keyword in either place, then parses the last argument.
    assertThat(show("TDIGEST.CREATE v 100 COMPRESSION"))
        .isEqualTo("(error) ERR T-Digest: error parsing compression parameter");
  }

  @Test
  void create_errors_inRedisBloomsOrder_changeNothing() {
    h.call("TDIGEST.CREATE", "t");
    h.call("BF.ADD", "s", "x");
    assertThat(show("TDIGEST.CREATE t COMPRESSION x"))
        .isEqualTo("(error) ERR T-Digest: key already exists");
    assertThat(show("TDIGEST.CREATE s")).isEqualTo(WRONGTYPE);
    assertThat(show("TDIGEST.CREATE n COMPRESSION"))
        .isEqualTo("(error) ERR wrong number of arguments for 'tdigest.create' command");
    assertThat(show("TDIGEST.CREATE n COMPRESSION 1 2"))
        .isEqualTo("(error) ERR wrong number of arguments for 'tdigest.create' command");
    assertThat(show("TDIGEST.CREATE n COMPRESS 100"))
        .isEqualTo("(error) ERR T-Digest: wrong keyword");
    for (String bad : new String[] {"x", "1.5", "", "01", "9223372036854775808"}) {
      assertThat(h.show("TDIGEST.CREATE", "n", "COMPRESSION", bad))
          .as(bad)
          .isEqualTo("(error) ERR T-Digest: error parsing compression parameter");
    }
    for (String bad : new String[] {"0", "-5"}) {
      assertThat(h.show("TDIGEST.CREATE", "n", "COMPRESSION", bad))
          .isEqualTo("(error) ERR T-Digest: compression parameter needs to be a positive integer");
    }
    for (String huge : new String[] {"10000001", "100000000000000000"}) {
      assertThat(h.show("TDIGEST.CREATE", "n", "COMPRESSION", huge))
          .isEqualTo("(error) ERR T-Digest: allocation failed");
    }
    h.engine.setMaxMemory(1_000_000);
    assertThat(show("TDIGEST.CREATE n COMPRESSION 100000"))
        .isEqualTo("(error) ERR T-Digest: allocation failed");
    assertThat(show("EXISTS n")).isEqualTo("(integer) 0");
  }

  @Test
  void add_checksEveryValueFirst_aBadOneChangesNothing() {
    assertThat(show("TDIGEST.ADD t 1")).isEqualTo(NOT_FOUND);
    h.call("BF.ADD", "s", "x");
    assertThat(show("TDIGEST.ADD s 1")).isEqualTo(WRONGTYPE);
    h.call("TDIGEST.CREATE", "t");
    h.call("TDIGEST.ADD", "t", "7");
    // 1e400 parses as inf on Redis 8, as an error on Redis 7 and here.
    for (String bad : new String[] {"x", "nan", "", "1.5x", " 1", "1e400"}) {
      assertThat(h.show("TDIGEST.ADD", "t", "1", bad, "2"))
          .as(bad)
          .isEqualTo("(error) ERR T-Digest: error parsing val parameter");
    }
    for (String bad : new String[] {"inf", "-inf", "+Infinity"}) {
      assertThat(h.show("TDIGEST.ADD", "t", "1", bad))
          .as(bad)
          .isEqualTo("(error) ERR T-Digest: val parameter needs to be a finite number");
    }
    assertThat(show("TDIGEST.ADD t"))
        .isEqualTo("(error) ERR wrong number of arguments for 'tdigest.add' command");
    assertThat(show("TDIGEST.INFO t")).contains("Observations=(integer) 1,");
    assertThat(show("TDIGEST.ADD t -1.5e3 +2 16")).isEqualTo("OK");
    assertThat(show("TDIGEST.MIN t")).isEqualTo("(double) -1500.0");
    assertThat(show("TDIGEST.MAX t")).isEqualTo("(double) 16.0");
  }

  @Test
  void minMax_exact_nanWhenEmpty_andNoCompression() {
    h.call("TDIGEST.CREATE", "t");
    assertThat(show("TDIGEST.MIN t")).isEqualTo("(double) NaN");
    assertThat(show("TDIGEST.MAX t")).isEqualTo("(double) NaN");
    h.call("TDIGEST.ADD t 3 4 1 2 5".split(" "));
    assertThat(show("TDIGEST.MIN t")).isEqualTo("(double) 1.0");
    assertThat(show("TDIGEST.MAX t")).isEqualTo("(double) 5.0");
    assertThat(show("TDIGEST.INFO t")).contains("Unmerged nodes=(integer) 5,");
    assertThat(show("TDIGEST.MIN nope")).isEqualTo(NOT_FOUND);
  }

  @Test
  void quantileAndCdf_asRedisBloomsDocumentation() {
    h.call("TDIGEST.CREATE", "t", "COMPRESSION", "1000");
    h.call(("TDIGEST.ADD t " + ONE_TO_FIVE).split(" "));
    assertThat(show("TDIGEST.QUANTILE t 0 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1"))
        .isEqualTo(doubles(1, 2, 3, 3, 4, 4, 4, 5, 5, 5, 5));
    assertThat(show("TDIGEST.INFO t"))
        .contains("Merged nodes=(integer) 15, Unmerged nodes=(integer) 0,")
        .contains("Total compressions=(integer) 1,");
    assertThat(show("TDIGEST.CDF t 0 1 2 3 4 5 6"))
        .isEqualTo(doubles(0, 1.0 / 30, 4.0 / 30, 9.0 / 30, 16.0 / 30, 25.0 / 30, 1));
    assertThat(show("TDIGEST.CDF t -inf inf")).isEqualTo(doubles(0, 1));
    // Runs that go down are each walked afresh: the answers are as if asked one by one.
    assertThat(show("TDIGEST.QUANTILE t 1 0 0.5 0.5")).isEqualTo(doubles(5, 1, 4, 4));
  }

  @Test
  void quantileCdfAndTrimmedMean_errorsAndEmpty() {
    assertThat(show("TDIGEST.QUANTILE t 0.5")).isEqualTo(NOT_FOUND);
    h.call("TDIGEST.CREATE", "t");
    assertThat(show("TDIGEST.QUANTILE t 0.5 0.9")).isEqualTo("[(double) NaN, (double) NaN]");
    assertThat(show("TDIGEST.CDF t 1")).isEqualTo("[(double) NaN]");
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0.1 0.9")).isEqualTo("(double) NaN");
    assertThat(show("TDIGEST.QUANTILE t 0.5 x 2"))
        .isEqualTo("(error) ERR T-Digest: error parsing quantile");
    assertThat(show("TDIGEST.QUANTILE t 0.5 2 x"))
        .isEqualTo("(error) ERR T-Digest: quantile should be in [0,1]");
    assertThat(show("TDIGEST.QUANTILE t -0.1"))
        .isEqualTo("(error) ERR T-Digest: quantile should be in [0,1]");
    assertThat(show("TDIGEST.CDF t 1 nan")).isEqualTo("(error) ERR T-Digest: error parsing cdf");
    assertThat(show("TDIGEST.TRIMMED_MEAN t x y"))
        .isEqualTo("(error) ERR T-Digest: error parsing low_cut_percentile");
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0.1 y"))
        .isEqualTo("(error) ERR T-Digest: error parsing high_cut_percentile");
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0.1 1.1"))
        .isEqualTo(
            "(error) ERR T-Digest: low_cut_percentile and high_cut_percentile should be in [0,1]");
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0.5 0.5"))
        .isEqualTo(
            "(error) ERR T-Digest: low_cut_percentile should be lower than high_cut_percentile");
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0.1"))
        .isEqualTo("(error) ERR wrong number of arguments for 'tdigest.trimmed_mean' command");
  }

  @Test
  void trimmedMean_asRedisBloomsDocumentationAndTests() {
    h.call("TDIGEST.CREATE", "t", "COMPRESSION", "1000");
    h.call("TDIGEST.ADD t 1 2 3 4 5 6 7 8 9 10".split(" "));
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0.1 0.6")).isEqualTo("(double) 4.0");
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0.3 0.9")).isEqualTo("(double) 6.5");
    assertThat(show("TDIGEST.TRIMMED_MEAN t 0 1")).isEqualTo("(double) 5.5");
    h.call("TDIGEST.CREATE", "u");
    h.call("TDIGEST.ADD u 1 1 1 1 1 1 1 1 1 5".split(" "));
    assertThat(show("TDIGEST.TRIMMED_MEAN u 0.1 0.9")).isEqualTo("(double) 1.0");
    assertThat(show("TDIGEST.TRIMMED_MEAN u 0.05 0.95")).isEqualTo("(double) 1.4");
  }

  @Test
  void ranks_asRedisBloomsTests() {
    h.call("TDIGEST.CREATE", "t", "COMPRESSION", "1000");
    h.call(("TDIGEST.ADD t " + ONE_TO_FIVE).split(" "));
    assertThat(show("TDIGEST.RANK t 0 1 2 3 4 5 6")).isEqualTo(ints(-1, 0, 2, 4, 8, 12, 15));
    assertThat(show("TDIGEST.REVRANK t 0 1 2 3 4 5 6")).isEqualTo(ints(15, 14, 13, 10, 7, 2, -1));
    assertThat(show("TDIGEST.BYREVRANK t 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15"))
        .isEqualTo(doubles(5, 5, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 2, 2, 1, Double.NEGATIVE_INFINITY));
    assertThat(show("TDIGEST.BYRANK t 15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0"))
        .isEqualTo(doubles(Double.POSITIVE_INFINITY, 5, 5, 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 2, 2, 1));
    h.call("TDIGEST.CREATE", "s", "COMPRESSION", "1000");
    h.call("TDIGEST.ADD s 10 20 30 40 50 60".split(" "));
    assertThat(show("TDIGEST.RANK s 0 10 20 30 40 50 60 70"))
        .isEqualTo(ints(-1, 0, 1, 2, 3, 4, 5, 6));
    assertThat(show("TDIGEST.REVRANK s 0 10 20 30 40 50 60 70"))
        .isEqualTo(ints(6, 5, 4, 3, 2, 1, 0, -1));
    assertThat(show("TDIGEST.BYRANK s 0 1 2 3 4 5 6"))
        .isEqualTo(doubles(10, 20, 30, 40, 50, 60, Double.POSITIVE_INFINITY));
    assertThat(show("TDIGEST.BYREVRANK s 0 1 2 3 4 5 6"))
        .isEqualTo(doubles(60, 50, 40, 30, 20, 10, Double.NEGATIVE_INFINITY));
  }

  @Test
  void ranks_errorsAndEmpty() {
    h.call("TDIGEST.CREATE", "t");
    assertThat(show("TDIGEST.RANK t 1 2")).isEqualTo(ints(-2, -2));
    assertThat(show("TDIGEST.REVRANK t 1")).isEqualTo(ints(-2));
    assertThat(show("TDIGEST.BYRANK t 0 1")).isEqualTo("[(double) NaN, (double) NaN]");
    assertThat(show("TDIGEST.RANK t 1 nan")).isEqualTo("(error) ERR T-Digest: error parsing value");
    assertThat(show("TDIGEST.REVRANK t x")).isEqualTo("(error) ERR T-Digest: error parsing value");
    assertThat(show("TDIGEST.BYRANK t 0.5")).isEqualTo("(error) ERR T-Digest: error parsing rank");
    assertThat(show("TDIGEST.BYREVRANK t 1 -1 x"))
        .isEqualTo("(error) ERR T-Digest: rank needs to be non negative");
    assertThat(show("TDIGEST.RANK t"))
        .isEqualTo("(error) ERR wrong number of arguments for 'tdigest.rank' command");
    h.call("BF.ADD", "s", "x");
    assertThat(show("TDIGEST.BYRANK s x")).isEqualTo(WRONGTYPE);
    assertThat(show("TDIGEST.RANK nope x")).isEqualTo(NOT_FOUND);
  }

  @Test
  void reset_keepsTheCompression() {
    assertThat(show("TDIGEST.RESET t")).isEqualTo(NOT_FOUND);
    h.call("TDIGEST.CREATE", "t", "COMPRESSION", "50");
    h.call("TDIGEST.ADD t 1 2 3".split(" "));
    h.call("TDIGEST.QUANTILE", "t", "0.5");
    assertThat(show("TDIGEST.RESET t")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO t"))
        .startsWith("{Compression=(integer) 50,")
        .contains("Observations=(integer) 0, Total compressions=(integer) 0,");
    assertThat(show("TDIGEST.MAX t")).isEqualTo("(double) NaN");
  }

  @Test
  void merge_compressionAndContent_asRedisBloomChoosesThem() {
    h.call("TDIGEST.CREATE", "a", "COMPRESSION", "60");
    h.call("TDIGEST.CREATE", "b", "COMPRESSION", "200");
    h.call("TDIGEST.ADD a 1 2 3".split(" "));
    h.call("TDIGEST.ADD b 10 20".split(" "));
    // A new destination takes the largest compression of the sources.
    assertThat(show("TDIGEST.MERGE d 2 a b")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO d"))
        .startsWith("{Compression=(integer) 200,")
        .contains("Observations=(integer) 5,");
    assertThat(show("TDIGEST.QUANTILE d 0 1")).isEqualTo(doubles(1, 20));
    // An existing one keeps its compression and its observations...
    assertThat(show("TDIGEST.MERGE a 1 b")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO a"))
        .startsWith("{Compression=(integer) 60,")
        .contains("Observations=(integer) 5,");
    // ...unless OVERRIDE, and COMPRESSION wins over both.
    assertThat(show("TDIGEST.MERGE a 1 b override")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO a"))
        .startsWith("{Compression=(integer) 200,")
        .contains("Observations=(integer) 2,");
    assertThat(show("TDIGEST.MERGE a 2 b b COMPRESSION 30 OVERRIDE")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO a"))
        .startsWith("{Compression=(integer) 30,")
        .contains("Observations=(integer) 4,");
    // A destination listed as a source counts twice; its expiry goes, as Redis replaces the key.
    h.call("EXPIRE", "a", "100");
    assertThat(show("TDIGEST.MERGE a 1 a")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO a")).contains("Observations=(integer) 8,");
    assertThat(show("TTL a")).isEqualTo("(integer) -1");
    // Unknown words beside a keyword are ignored, as in RedisBloom.
    assertThat(show("TDIGEST.MERGE a 1 b junk OVERRIDE")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO a")).contains("Observations=(integer) 2,");
  }

  @Test
  void merge_whileTheDestinationsExpiryPasses_eitherFindsItGoneOrKeepsIt() {
    // A clock that moves with every read: the expiry falls somewhere inside one of these merges.
    java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1000);
    Harness ticking = new Harness(clock::getAndIncrement);
    List<String> replies = new ArrayList<>();
    for (int ahead = 0; ahead < 30; ahead++) {
      String key = "d" + ahead;
      ticking.call("TDIGEST.CREATE", key);
      ticking.call("TDIGEST.ADD", key, "1");
      ticking.call("PEXPIREAT", key, Long.toString(clock.get() + ahead));
      String merged = ticking.show("TDIGEST.MERGE", key, "1", key);
      String exists = ticking.show("EXISTS", key);
      replies.add(merged + " " + exists);
      assertThat(merged + " " + exists)
          .as("a merge that replied OK left the key")
          .isIn(NOT_FOUND + " (integer) 0", "OK (integer) 1");
    }
    assertThat(replies).contains(NOT_FOUND + " (integer) 0", "OK (integer) 1");
  }

  @Test
  void merge_errors_inRedisBloomsOrder_changeNothing() {
    h.call("TDIGEST.CREATE", "a");
    h.call("TDIGEST.ADD a 1 2 3".split(" "));
    h.call("BF.ADD", "s", "x");
    String arity = "(error) ERR wrong number of arguments for 'tdigest.merge' command";
    assertThat(show("TDIGEST.MERGE s x a")).isEqualTo(WRONGTYPE);
    assertThat(show("TDIGEST.MERGE d x a"))
        .isEqualTo("(error) ERR T-Digest: error parsing numkeys");
    assertThat(show("TDIGEST.MERGE d 0 a"))
        .isEqualTo("(error) ERR T-Digest: numkeys needs to be a positive integer");
    assertThat(show("TDIGEST.MERGE d 2 a")).isEqualTo(arity);
    assertThat(show("TDIGEST.MERGE d 1 a COMPRESSION")).isEqualTo(arity);
    assertThat(show("TDIGEST.MERGE d 1 a COMPRESS 5"))
        .isEqualTo("(error) ERR T-Digest: wrong keyword");
    assertThat(show("TDIGEST.MERGE d 1 a COMPRESSION 0"))
        .isEqualTo("(error) ERR T-Digest: compression parameter needs to be a positive integer");
    assertThat(show("TDIGEST.MERGE d 1 a COMPRESSION 99999999999"))
        .isEqualTo("(error) ERR T-Digest: allocation of destination digest failed");
    // As in RedisBloom, the sources are checked before the size of the result.
    assertThat(show("TDIGEST.MERGE d 1 nope COMPRESSION 20000000")).isEqualTo(NOT_FOUND);
    assertThat(show("TDIGEST.MERGE d 2 a nope")).isEqualTo(NOT_FOUND);
    assertThat(show("TDIGEST.MERGE d 2 a s")).isEqualTo(WRONGTYPE);
    assertThat(show("TDIGEST.MERGE d 1 d")).isEqualTo(NOT_FOUND);
    assertThat(show("TDIGEST.MERGE d")).isEqualTo(arity);
    assertThat(show("EXISTS d")).isEqualTo("(integer) 0");
    assertThat(show("TDIGEST.INFO a")).contains("Observations=(integer) 3,");
    // Weights that would pass 2^63 - 1: the merge is refused and the digest stays.
    h.call("TDIGEST.CREATE", "w");
    h.call("TDIGEST.ADD", "w", "1");
    String refused = null;
    for (int i = 0; i < 70 && refused == null; i++) {
      String reply = show("TDIGEST.MERGE w 1 w");
      refused = reply.equals("OK") ? null : reply;
    }
    assertThat(refused).isEqualTo("(error) ERR T-Digest: overflow detected");
    assertThat(show("TDIGEST.INFO w")).contains("Observations=(integer) " + (1L << 62) + ",");
    assertThat(show("TDIGEST.ADD w 1")).isEqualTo("OK");
    assertThat(show("TDIGEST.INFO w")).contains("Observations=(integer) " + ((1L << 62) + 1) + ",");
  }

  @Test
  void replayingTheLog_rebuildsEveryDigestByteForByte_queriesCompressingBetweenWrites()
      throws Exception {
    CuckooCodecTest.Recording journal = new CuckooCodecTest.Recording();
    h.engine.attach(journal);
    SplittableRandom r = new SplittableRandom(11);
    h.call("TDIGEST.CREATE", "a", "COMPRESSION", "20"); // 130 slots: adds compress too
    h.call("TDIGEST.CREATE", "b");
    for (int round = 0; round < 60; round++) {
      List<String> add = new ArrayList<>(List.of("TDIGEST.ADD", round % 3 == 0 ? "b" : "a"));
      for (int i = r.nextInt(1, 40); i > 0; i--) {
        add.add(Double.toString(Math.floor(r.nextDouble() * 1000) / 10));
      }
      h.call(add.toArray(String[]::new));
      switch (r.nextInt(6)) {
        case 0 -> h.call("TDIGEST.QUANTILE", "a", "0.5", "0.99");
        case 1 -> h.call("TDIGEST.CDF", "b", "50");
        case 2 -> h.call("TDIGEST.MERGE", "c", "2", "a", "b"); // compresses a and b in place
        case 3 -> h.call("TDIGEST.RANK", "a", "50");
        case 4 -> h.call("TDIGEST.ADD", "a", "1", "2");
        default -> {
          if (round % 20 == 19) {
            h.call("TDIGEST.RESET", "b");
          }
        }
      }
    }
    h.call("TDIGEST.ADD", "a", "x"); // refused: not logged
    // The last thing each key sees is a write, so the live digest is what the log says.
    for (String key : new String[] {"a", "b", "c"}) {
      h.call("TDIGEST.ADD", key, "42");
      CuckooCodecTest.Logged logged = journal.of(h, key);
      TDigest replayed = logged.replay(TdigestCodec.INSTANCE);
      TDigest live = h.engine.read(Harness.bytes(key), e -> (TDigest) e.value());
      assertThat(bytes(replayed)).as(key).isEqualTo(bytes(live));
    }
    long compressions =
        h.engine.read(Harness.bytes("a"), e -> ((TDigest) e.value()).totalCompressions());
    assertThat(compressions).isGreaterThan(5);
  }

  @Test
  void replay_refusesAnAddOutOfStepWithTheDigest() throws Exception {
    CuckooCodecTest.Recording journal = new CuckooCodecTest.Recording();
    h.engine.attach(journal);
    h.call("TDIGEST.CREATE", "a");
    h.call("TDIGEST.ADD", "a", "1", "2");
    h.call("TDIGEST.QUANTILE", "a", "0.5");
    h.call("TDIGEST.ADD", "a", "3");
    CuckooCodecTest.Logged logged = journal.of(h, "a");
    TDigest replayed = TdigestCodec.INSTANCE.create(logged.recipe());
    // Skip the first ADD: the second says the digest had compressed once, which it cannot reach.
    TDigest other = TdigestCodec.INSTANCE.create(logged.recipe());
    TdigestCodec.INSTANCE.apply(replayed, logged.ops().get(0).op(), logged.ops().get(0).payload());
    TdigestCodec.INSTANCE.apply(replayed, logged.ops().get(1).op(), logged.ops().get(1).payload());
    assertThat(replayed.totalCompressions()).isEqualTo(1);
    assertThatThrownBy(
            () ->
                TdigestCodec.INSTANCE.apply(
                    other, logged.ops().get(1).op(), logged.ops().get(1).payload()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("ADD logged after 1 compressions, the digest has seen 0");
    assertThatThrownBy(() -> TdigestCodec.INSTANCE.apply(other, (byte) 9, new byte[0]))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> TdigestCodec.INSTANCE.apply(other, (byte) 1, new byte[12]))
        .isInstanceOf(IOException.class);
  }

  private static String doubles(double... values) {
    StringBuilder b = new StringBuilder("[");
    for (double v : values) {
      b.append(b.length() > 1 ? ", " : "").append("(double) ").append(v);
    }
    return b.append(']').toString();
  }

  private static String ints(long... values) {
    StringBuilder b = new StringBuilder("[");
    for (long v : values) {
      b.append(b.length() > 1 ? ", " : "").append("(integer) ").append(v);
    }
    return b.append(']').toString();
  }

  private static byte[] bytes(TDigest t) throws IOException {
    return CuckooCodecTest.written(TdigestCodec.INSTANCE, t);
  }
}
