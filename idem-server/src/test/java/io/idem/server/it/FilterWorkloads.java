package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** The crash test's workloads for Bloom and cuckoo filters and for HyperLogLogs. */
final class FilterWorkloads {

  private FilterWorkloads() {}

  static List<CrashWorkload> all() {
    return List.of(new Adds(), new CuckooCounts(), new Chunks(), new HyperLogLogs());
  }

  /**
   * BF.ADD and CF.ADD of new items into large filters, and BF.MADD into a small filter that keeps
   * growing new layers, so kills also land while a layer is added. Every acknowledged item is there
   * after a restart.
   */
  static final class Adds extends CrashWorkload {
    private final Acked bloom = new Acked();
    private final Acked cuckoo = new Acked();
    private final Acked scaled = new Acked();
    private int n;

    Adds() {
      super("BF.ADD, BF.MADD (scaling), CF.ADD");
    }

    @Override
    void create(RespClient c) throws IOException {
      ok(c.call("BF.RESERVE", "bf", "0.001", "1000000"), "BF.RESERVE");
      ok(c.call("CF.RESERVE", "cf", "1000000"), "CF.RESERVE");
      ok(c.call("BF.RESERVE", "bfx", "0.01", "1000", "EXPANSION", "2"), "BF.RESERVE scaling");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < 128; i++, n++) {
        String item = "c" + cycle + "-" + n;
        items.add(item);
        c.send(i % 2 == 0 ? "BF.ADD" : "CF.ADD", i % 2 == 0 ? "bf" : "cf", item);
      }
      List<String> madd = new ArrayList<>(List.of("BF.MADD", "bfx"));
      List<String> more = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        more.add("x" + cycle + "-" + n + "-" + i);
      }
      madd.addAll(more);
      c.send(words(madd));
      c.flush();
      for (int i = 0; i < items.size(); i++) {
        Object reply = c.read();
        assertThat(reply).as("reply to add %s", items.get(i)).isIn(0L, 1L);
        (i % 2 == 0 ? bloom : cuckoo).items.add(items.get(i));
        acknowledged++;
      }
      List<?> answers = list(c.read(), "BF.MADD");
      assertThat(answers)
          .as("BF.MADD answers")
          .hasSize(more.size())
          .allMatch(a -> a.equals(0L) || a.equals(1L));
      scaled.items.addAll(more);
      acknowledged++;
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      expectAll(c, bloom.toCheck(random), 1L, "BF.MEXISTS", "bf");
      expectAll(c, cuckoo.toCheck(random), 1L, "CF.MEXISTS", "cf");
      expectAll(c, scaled.toCheck(random), 1L, "BF.MEXISTS", "bfx");
      bloom.checked();
      cuckoo.checked();
      scaled.checked();
    }
  }

  /**
   * CF.ADD of the same items again and again and CF.DEL of them, in a filter of few items (so no
   * two share a fingerprint and CF.COUNT is exact): each count after a restart lies between what
   * the acknowledged and the sent adds and deletes allow.
   */
  static final class CuckooCounts extends CrashWorkload {
    private static final int ITEMS = 16;
    private static final int MOST = 3; // copies of an item: under a bucket pair's slots
    private final Tally counts = new Tally(ITEMS);

    CuckooCounts() {
      super("CF.ADD duplicates, CF.DEL, CF.COUNT");
    }

    @Override
    void create(RespClient c) throws IOException {
      ok(c.call("CF.RESERVE", "cfd", "1000"), "CF.RESERVE");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      long[] deltas = new long[ITEMS];
      for (int j = 0; j < ITEMS; j++) {
        boolean add = counts.high[j] < MOST && (counts.low[j] < 1 || random.nextBoolean());
        if (!add && counts.low[j] < 1) {
          continue; // neither is safe: a delete must find a copy whatever the kill cut off
        }
        deltas[j] = add ? 1 : -1;
        counts.sent(j, deltas[j]);
        c.send(add ? "CF.ADD" : "CF.DEL", "cfd", "d" + j);
      }
      c.flush();
      for (int j = 0; j < ITEMS; j++) {
        if (deltas[j] != 0) {
          assertThat(c.read()).as("%s d%d", deltas[j] > 0 ? "CF.ADD" : "CF.DEL", j).isEqualTo(1L);
          counts.acked(j, deltas[j]);
          acknowledged++;
        }
      }
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      for (int j = 0; j < ITEMS; j++) {
        counts.check(j, (Long) c.call("CF.COUNT", "cfd", "d" + j), "CF.COUNT d" + j);
      }
    }
  }

  /**
   * BF.SCANDUMP and CF.SCANDUMP of growing filters, loaded with BF.LOADCHUNK and CF.LOADCHUNK under
   * a new key each time (the previous copy deleted): the last copy whose chunks were all
   * acknowledged holds every item its source had acknowledged when it was dumped.
   */
  static final class Chunks extends CrashWorkload {
    private final Acked bloom = new Acked();
    private final Acked cuckoo = new Acked();
    private int n;
    private int copies;
    private int batches;
    private String bloomCopy;
    private int bloomCopyItems;
    private String cuckooCopy;
    private int cuckooCopyItems;

    Chunks() {
      super("BF.SCANDUMP/LOADCHUNK, CF.SCANDUMP/LOADCHUNK");
    }

    @Override
    void create(RespClient c) throws IOException {
      ok(c.call("BF.RESERVE", "bfs", "0.001", "2000", "EXPANSION", "2"), "BF.RESERVE");
      ok(c.call("CF.RESERVE", "cfs", "2000", "EXPANSION", "2"), "CF.RESERVE");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      List<String> items = new ArrayList<>();
      for (int i = 0; i < 32; i++, n++) {
        items.add("s" + cycle + "-" + n);
      }
      List<String> madd = new ArrayList<>(List.of("BF.MADD", "bfs"));
      madd.addAll(items);
      List<String> insert = new ArrayList<>(List.of("CF.INSERT", "cfs", "ITEMS"));
      insert.addAll(items);
      c.send(words(madd));
      c.send(words(insert));
      c.flush();
      assertThat(list(c.read(), "BF.MADD")).hasSize(items.size());
      bloom.items.addAll(items);
      assertThat(new ArrayList<Object>(list(c.read(), "CF.INSERT")))
          .hasSize(items.size())
          .containsOnly(1L);
      cuckoo.items.addAll(items);
      acknowledged += 2;
      if (++batches % 8 == 0) {
        // The new copy is the one checked from here: the old one's DEL may apply unanswered.
        String old = bloomCopy;
        String copy = "bfcopy" + copies++;
        copy(c, "BF", "bfs", copy);
        bloomCopy = copy;
        bloomCopyItems = bloom.items.size();
        if (old != null) {
          assertThat(c.call("DEL", old)).as("DEL %s", old).isEqualTo(1L);
        }
        old = cuckooCopy;
        copy = "cfcopy" + copies++;
        copy(c, "CF", "cfs", copy);
        cuckooCopy = copy;
        cuckooCopyItems = cuckoo.items.size();
        if (old != null) {
          assertThat(c.call("DEL", old)).as("DEL %s", old).isEqualTo(1L);
        }
      }
    }

    /** Dumps {@code source} chunk by chunk, then pipelines the chunks into {@code target}. */
    private void copy(RespClient c, String family, String source, String target)
        throws IOException {
      List<Object[]> chunks = new ArrayList<>();
      long iterator = 0;
      do {
        List<?> reply = list(c.call(family + ".SCANDUMP", source, Long.toString(iterator)), "dump");
        iterator = (Long) reply.get(0);
        if (iterator != 0) {
          chunks.add(new Object[] {iterator, reply.get(1)});
        }
      } while (iterator != 0);
      for (Object[] chunk : chunks) {
        c.send(
            (family + ".LOADCHUNK").getBytes(),
            target.getBytes(),
            Long.toString((Long) chunk[0]).getBytes(),
            (byte[]) chunk[1]);
      }
      c.flush();
      for (int i = 0; i < chunks.size(); i++) {
        ok(c.read(), family + ".LOADCHUNK " + target + " chunk " + i);
      }
      acknowledged += chunks.size();
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      expectAll(c, bloom.toCheck(random), 1L, "BF.MEXISTS", "bfs");
      expectAll(c, cuckoo.toCheck(random), 1L, "CF.MEXISTS", "cfs");
      if (bloomCopy != null) {
        expectAll(c, sample(bloom, bloomCopyItems, random), 1L, "BF.MEXISTS", bloomCopy);
      }
      if (cuckooCopy != null) {
        expectAll(c, sample(cuckoo, cuckooCopyItems, random), 1L, "CF.MEXISTS", cuckooCopy);
      }
      bloom.checked();
      cuckoo.checked();
    }

    private static List<String> sample(Acked acked, int upTo, Random random) {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < Math.min(upTo, Acked.SAMPLE); i++) {
        out.add(acked.items.get(random.nextInt(upTo)));
      }
      return out;
    }
  }

  /**
   * PFADD into two HyperLogLogs and PFMERGE of both into a third. An acknowledged element added
   * again after a restart changes nothing (PFADD replies 0), in its own key and in the merge of the
   * last acknowledged PFMERGE. Adding again is idempotent, so "applied twice" cannot happen here.
   */
  static final class HyperLogLogs extends CrashWorkload {
    private final Acked first = new Acked();
    private final Acked second = new Acked();
    private int n;
    private int batches;
    private int mergedFirst;
    private int mergedSecond;
    private final List<int[]> mergesInFlight = new ArrayList<>();

    HyperLogLogs() {
      super("PFADD, PFMERGE");
    }

    @Override
    void create(RespClient c) throws IOException {
      c.call("PFADD", "pf1");
      c.call("PFADD", "pf2");
    }

    @Override
    void batch(RespClient c, Random random) throws IOException {
      List<String> a = new ArrayList<>();
      List<String> b = new ArrayList<>();
      for (int i = 0; i < 32; i++, n++) {
        (i % 2 == 0 ? a : b).add("p" + cycle + "-" + n);
      }
      List<String> addA = new ArrayList<>(List.of("PFADD", "pf1"));
      addA.addAll(a);
      List<String> addB = new ArrayList<>(List.of("PFADD", "pf2"));
      addB.addAll(b);
      c.send(words(addA));
      c.send(words(addB));
      boolean merge = ++batches % 4 == 0;
      if (merge) {
        c.send("PFMERGE", "pfm", "pf1", "pf2");
        // Once the adds above apply, the merge sees every item sent so far.
        mergesInFlight.add(
            new int[] {first.items.size() + a.size(), second.items.size() + b.size()});
      }
      c.flush();
      assertThat(c.read()).as("PFADD pf1").isIn(0L, 1L);
      first.items.addAll(a);
      assertThat(c.read()).as("PFADD pf2").isIn(0L, 1L);
      second.items.addAll(b);
      acknowledged += 2;
      if (merge) {
        ok(c.read(), "PFMERGE");
        int[] seen = mergesInFlight.removeFirst();
        mergedFirst = seen[0];
        mergedSecond = seen[1];
        acknowledged++;
      }
    }

    @Override
    void verify(RespClient c, Random random) throws IOException {
      expectEachAdd(c, "pf1", first.toCheck(random));
      expectEachAdd(c, "pf2", second.toCheck(random));
      List<String> merged = new ArrayList<>();
      for (int i = 0; i < Math.min(Acked.SAMPLE, mergedFirst); i++) {
        merged.add(first.items.get(random.nextInt(mergedFirst)));
      }
      for (int i = 0; i < Math.min(Acked.SAMPLE, mergedSecond); i++) {
        merged.add(second.items.get(random.nextInt(mergedSecond)));
      }
      expectEachAdd(c, "pfm", merged);
      first.checked();
      second.checked();
      mergesInFlight.clear();
    }

    /** PFADD of the items, 64 at a time: each changes nothing. */
    private static void expectEachAdd(RespClient c, String key, List<String> items)
        throws IOException {
      for (int from = 0; from < items.size(); from += 64) {
        List<String> chunk = items.subList(from, Math.min(items.size(), from + 64));
        List<String> w = new ArrayList<>(List.of("PFADD", key));
        w.addAll(chunk);
        assertThat(c.call(words(w))).as("PFADD %s of acknowledged %s", key, chunk).isEqualTo(0L);
      }
    }
  }
}
