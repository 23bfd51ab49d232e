package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The crash test's workloads for counting sketches (CMS, TopK, t-digest, with their merges) and for
 * windowed counter and distinct tables. Each count after a restart lies between what the
 * acknowledged increments and the sent ones allow: none lost, none counted twice.
 */
final class SketchWorkloads {

  private SketchWorkloads() {}

  static List<CrashWorkload> all() {
    return List.of(new Sketches(), new Windows());
  }

  private static final int ITEMS = 16;

  /**
   * CMS.INCRBY into two sketches and CMS.MERGE of both into a third; TOPK.INCRBY; TDIGEST.ADD into
   * two digests and TDIGEST.MERGE … OVERRIDE of both into a third. The sketches are wide for their
   * few items, so their counts are exact and any loss or double count shows.
   */
  static final class Sketches extends CrashWorkload {
    private final Tally cms1 = new Tally(ITEMS);
    private final Tally cms2 = new Tally(ITEMS);
    private final Merged cmsMerged = new Merged(ITEMS);
    private final Tally topk = new Tally(ITEMS);
    private final Tally digests = new Tally(2); // observations of td1 and td2
    private final Merged digestMerged = new Merged(1);
    private int batches;

    Sketches() {
      super("CMS.INCRBY, CMS.MERGE, TOPK.INCRBY, TDIGEST.ADD, TDIGEST.MERGE");
    }

    @Override
    void create(RespClient c) throws IOException {
      for (String key : List.of("cms1", "cms2", "cmsm")) {
        ok(c.call("CMS.INITBYDIM", key, "100000", "5"), "CMS.INITBYDIM " + key);
      }
      ok(c.call("TOPK.RESERVE", "tk", "32", "4000", "7", "0.9"), "TOPK.RESERVE");
      for (String key : List.of("td1", "td2", "tdm")) {
        ok(c.call("TDIGEST.CREATE", key), "TDIGEST.CREATE " + key);
      }
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      increments(c, "CMS.INCRBY", "cms1", cms1);
      increments(c, "CMS.INCRBY", "cms2", cms2);
      increments(c, "TOPK.INCRBY", "tk", topk);
      int values1 = 1 + random.nextInt(8);
      int values2 = 1 + random.nextInt(8);
      c.send(digestAdd("td1", values1, random));
      digests.sent(0, values1);
      c.send(digestAdd("td2", values2, random));
      digests.sent(1, values2);
      boolean merge = ++batches % 4 == 0;
      if (merge) {
        c.send("CMS.MERGE", "cmsm", "2", "cms1", "cms2");
        long[] sum = new long[ITEMS];
        for (int j = 0; j < ITEMS; j++) {
          sum[j] = cms1.high[j] + cms2.high[j];
        }
        cmsMerged.sent(sum);
        c.send("TDIGEST.MERGE", "tdm", "2", "td1", "td2", "OVERRIDE");
        digestMerged.sent(new long[] {digests.high[0] + digests.high[1]});
      }
      c.flush();
      List<?> counts = list(c.read(), "CMS.INCRBY cms1");
      acked(cms1, counts, "CMS.INCRBY cms1");
      acked(cms2, list(c.read(), "CMS.INCRBY cms2"), "CMS.INCRBY cms2");
      List<?> expelled = list(c.read(), "TOPK.INCRBY");
      assertThat(expelled).as("TOPK.INCRBY replies").hasSize(ITEMS);
      for (int j = 0; j < ITEMS; j++) {
        topk.acked(j, 1 + j);
      }
      ok(c.read(), "TDIGEST.ADD td1");
      digests.acked(0, values1);
      ok(c.read(), "TDIGEST.ADD td2");
      digests.acked(1, values2);
      acknowledged += 5;
      if (merge) {
        ok(c.read(), "CMS.MERGE");
        cmsMerged.acked();
        ok(c.read(), "TDIGEST.MERGE");
        digestMerged.acked();
        acknowledged += 2;
      }
    }

    /** Sends an increment of 1 + j for each item j, counted as sent. */
    private static void increments(RespClient c, String command, String key, Tally tally)
        throws IOException {
      List<String> w = new ArrayList<>(List.of(command, key));
      for (int j = 0; j < ITEMS; j++) {
        w.add("k" + j);
        w.add(Integer.toString(1 + j));
        tally.sent(j, 1 + j);
      }
      c.send(words(w));
    }

    /** CMS.INCRBY replies each new count: exactly the acknowledged total, being exact. */
    private static void acked(Tally tally, List<?> counts, String what) {
      for (int j = 0; j < ITEMS; j++) {
        tally.acked(j, 1 + j);
        assertThat(counts.get(j)).as("%s k%d", what, j).isEqualTo(tally.low[j]);
      }
    }

    private static String[] digestAdd(String key, int values, Random random) {
      List<String> w = new ArrayList<>(List.of("TDIGEST.ADD", key));
      for (int i = 0; i < values; i++) {
        w.add(Double.toString(random.nextGaussian() * 100));
      }
      return words(w);
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      for (String key : List.of("cms1", "cms2", "cmsm")) {
        List<String> w = new ArrayList<>(List.of("CMS.QUERY", key));
        for (int j = 0; j < ITEMS; j++) {
          w.add("k" + j);
        }
        List<?> counts = list(c.call(words(w)), "CMS.QUERY " + key);
        for (int j = 0; j < ITEMS; j++) {
          long count = (Long) counts.get(j);
          String what = "CMS.QUERY " + key + " k" + j;
          switch (key) {
            case "cms1" -> cms1.check(j, count, what);
            case "cms2" -> cms2.check(j, count, what);
            default -> cmsMerged.check(j, count, what);
          }
        }
      }
      cmsMerged.checked();
      List<String> w = new ArrayList<>(List.of("TOPK.COUNT", "tk"));
      for (int j = 0; j < ITEMS; j++) {
        w.add("k" + j);
      }
      List<?> counts = list(c.call(words(w)), "TOPK.COUNT");
      for (int j = 0; j < ITEMS; j++) {
        topk.check(j, (Long) counts.get(j), "TOPK.COUNT k" + j);
      }
      digests.check(0, observations(c, "td1"), "TDIGEST observations of td1");
      digests.check(1, observations(c, "td2"), "TDIGEST observations of td2");
      digestMerged.check(0, observations(c, "tdm"), "TDIGEST observations of tdm");
      digestMerged.checked();
    }

    private static long observations(RespClient c, String key) throws IOException {
      List<?> info = list(c.call("TDIGEST.INFO", key), "TDIGEST.INFO " + key);
      for (int i = 0; i + 1 < info.size(); i += 2) {
        if ("Observations".equals(info.get(i))) {
          return (Long) info.get(i + 1);
        }
      }
      throw new AssertionError("TDIGEST.INFO " + key + " has no Observations: " + info);
    }
  }

  /**
   * COUNTER.INCRBY and DISTINCT.ADD at the server's time. Each windowed count after a restart lies
   * between the acknowledged and the sent increments; each acknowledged distinct member added again
   * raises nothing. COUNTER.ALLOW under a limit of 20 a day: after a restart its count holds every
   * acknowledged allowance, and never more than the limit.
   */
  static final class Windows extends CrashWorkload {
    private final Tally counters = new Tally(ITEMS);
    private final Acked members = new Acked();
    private final long time = System.currentTimeMillis(); // one bucket: an add again is a no-op
    private int n;
    private long allowed;

    static final int ALLOW_LIMIT = 20;

    Windows() {
      super("COUNTER.INCRBY, DISTINCT.ADD, COUNTER.ALLOW");
    }

    @Override
    void create(RespClient c) throws IOException {
      ok(c.call("COUNTER.RESERVE", "wc"), "COUNTER.RESERVE");
      ok(c.call("DISTINCT.RESERVE", "dt"), "DISTINCT.RESERVE");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      List<String> w = new ArrayList<>(List.of("COUNTER.INCRBY", "wc", "*"));
      for (int j = 0; j < ITEMS; j++) {
        w.add("w" + j);
        w.add(Integer.toString(1 + j));
        counters.sent(j, 1 + j);
      }
      c.send(words(w));
      List<String> added = new ArrayList<>();
      List<String> d = new ArrayList<>(List.of("DISTINCT.ADD", "dt", Long.toString(time)));
      for (int i = 0; i < 32; i++, n++) {
        String member = "m" + cycle + "-" + n;
        added.add(member);
        d.add("n" + (i % 4));
        d.add(member);
      }
      c.send(words(d));
      c.send("COUNTER.ALLOW", "wa", "*", "a", Integer.toString(ALLOW_LIMIT), "1d");
      c.flush();
      assertThat(c.read()).as("resolutions counting the event").isEqualTo(2L);
      for (int j = 0; j < ITEMS; j++) {
        counters.acked(j, 1 + j);
      }
      assertThat(c.read()).as("DISTINCT.ADD").isInstanceOf(Long.class);
      members.items.addAll(added);
      List<?> allow = list(c.read(), "COUNTER.ALLOW");
      if (Long.valueOf(1).equals(allow.get(0))) {
        allowed++;
      }
      acknowledged += 3;
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      List<String> w = new ArrayList<>(List.of("COUNTER.QUERY", "wc", "*", "1d", "NAMES"));
      for (int j = 0; j < ITEMS; j++) {
        w.add("w" + j);
      }
      List<?> sums = list(c.call(words(w)), "COUNTER.QUERY");
      for (int j = 0; j < ITEMS; j++) {
        long count = (Long) ((List<?>) sums.get(j)).getFirst();
        counters.check(j, count, "COUNTER.QUERY w" + j);
      }
      long allowCount =
          (Long)
              ((List<?>) list(c.call("COUNTER.QUERY", "wa", "*", "1d", "NAMES", "a"), "wa").get(0))
                  .getFirst();
      assertThat(allowCount)
          .as("COUNTER.ALLOW's count: every acknowledged allowance, never over the limit")
          .isBetween(allowed, (long) ALLOW_LIMIT);
      allowed = allowCount;
      List<String> again = members.toCheck(random);
      for (int from = 0; from < again.size(); from += 64) {
        List<String> chunk = again.subList(from, Math.min(again.size(), from + 64));
        List<String> d = new ArrayList<>(List.of("DISTINCT.ADD", "dt", Long.toString(time)));
        for (String member : chunk) {
          int i = Integer.parseInt(member.substring(member.indexOf('-') + 1)) % 32;
          d.add("n" + (i % 4));
          d.add(member);
        }
        assertThat(c.call(words(d))).as("DISTINCT.ADD of acknowledged %s", chunk).isEqualTo(0L);
      }
      members.checked();
    }
  }
}
