package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One family's part of the crash test: it creates its keys, pipelines batches of writes on its own
 * connection until the server is killed, keeping a model of what was sent and what was
 * acknowledged, and after each restart checks the server against that model: nothing acknowledged
 * lost, nothing applied twice. What the server shows then becomes the model's truth (a write sent
 * but not acknowledged may or may not have been applied).
 *
 * <p>A workload's model is touched by its own thread during a run and by the test's thread after
 * the run's threads are joined, never by both at once.
 */
abstract class CrashWorkload {

  final String name;

  /** Commands acknowledged over the whole test, for its summary. */
  long acknowledged;

  /** The cycle under way, from 0. */
  int cycle;

  /** The server's port in the cycle under way: for a workload that opens more connections. */
  int port;

  CrashWorkload(String name) {
    this.name = name;
  }

  /** Creates the workload's keys, on the first start only. */
  abstract void create(RespClient c) throws IOException;

  /** Sends one pipelined batch and reads its replies; an IOException once the server is killed. */
  abstract void batch(RespClient c, Random random) throws IOException;

  /**
   * After a restart: checks the server against the model, then takes what it shows as the truth.
   */
  abstract void verify(RespClient c, Random random) throws IOException;

  // ---- helpers shared by the workloads

  static void ok(Object reply, String what) {
    assertThat(reply).as(what).isEqualTo("OK");
  }

  static List<?> list(Object reply, String what) {
    assertThat(reply).as(what).isInstanceOf(List.class);
    return (List<?>) reply;
  }

  static String[] words(List<String> words) {
    return words.toArray(String[]::new);
  }

  /**
   * Pipelines one command per item ({@code prefix} then the item), a thousand at a time, and checks
   * that each reply is {@code expected}.
   */
  static void expectEach(RespClient c, List<String> items, Object expected, String... prefix)
      throws IOException {
    for (int from = 0; from < items.size(); from += 1000) {
      List<String> chunk = items.subList(from, Math.min(items.size(), from + 1000));
      for (String item : chunk) {
        String[] w = java.util.Arrays.copyOf(prefix, prefix.length + 1);
        w[prefix.length] = item;
        c.send(w);
      }
      c.flush();
      for (String item : chunk) {
        assertThat(c.read())
            .as("%s %s after restart", String.join(" ", prefix), item)
            .isEqualTo(expected);
      }
    }
  }

  /**
   * Sends {@code prefix} followed by the items, a thousand at a time, and checks that each reply
   * (an array with one answer per item) holds {@code expected} for every item.
   */
  static void expectAll(RespClient c, List<String> items, Object expected, String... prefix)
      throws IOException {
    for (int from = 0; from < items.size(); from += 1000) {
      List<String> chunk = items.subList(from, Math.min(items.size(), from + 1000));
      List<String> w = new ArrayList<>(List.of(prefix));
      w.addAll(chunk);
      List<?> answers = list(c.call(words(w)), String.join(" ", prefix));
      for (int i = 0; i < chunk.size(); i++) {
        assertThat(answers.get(i))
            .as("%s %s after restart", String.join(" ", prefix), chunk.get(i))
            .isEqualTo(expected);
      }
    }
  }

  // ---- models

  /**
   * Counters changed by increments (and decrements) whose replies may be cut off: each count lies
   * between what the acknowledged changes allow and what the sent ones allow.
   */
  static final class Tally {
    final long[] low;
    final long[] high;

    Tally(int n) {
      low = new long[n];
      high = new long[n];
    }

    void sent(int j, long delta) {
      if (delta > 0) {
        high[j] += delta;
      } else {
        low[j] += delta;
      }
    }

    void acked(int j, long delta) {
      if (delta > 0) {
        low[j] += delta;
      } else {
        high[j] += delta;
      }
    }

    /** The count is between the acknowledged and the sent changes; it is the truth from now on. */
    void check(int j, long seen, String what) {
      assertThat(seen).as("%s after restart", what).isBetween(low[j], high[j]);
      low[j] = seen;
      high[j] = seen;
    }
  }

  /**
   * A destination a merge sets from growing sources: it holds at least what the last acknowledged
   * merge saw and at most what the last sent one could.
   */
  static final class Merged {
    final long[] low;
    final long[] high;
    private final ArrayDeque<long[]> inFlight = new ArrayDeque<>();

    Merged(int n) {
      low = new long[n];
      high = new long[n];
    }

    /** A merge is sent; {@code value} is what the sources hold once every earlier write applies. */
    void sent(long[] value) {
      inFlight.add(value.clone());
      System.arraycopy(value, 0, high, 0, value.length);
    }

    void acked() {
      long[] value = inFlight.remove();
      System.arraycopy(value, 0, low, 0, value.length);
    }

    void check(int j, long seen, String what) {
      assertThat(seen).as("%s after restart", what).isBetween(low[j], high[j]);
      low[j] = seen;
      high[j] = seen;
    }

    /** After every index is checked: merges cut off by the kill are forgotten. */
    void checked() {
      inFlight.clear();
    }
  }

  /**
   * Items acknowledged as added, in order. A check after a restart covers those acknowledged since
   * the last check and a sample of the older ones (each was checked whole once; the sample catches
   * a later loss without making the test quadratic).
   */
  static final class Acked {
    static final int SAMPLE = 2048;
    final List<String> items = new ArrayList<>();
    private int checkedUpTo;

    List<String> toCheck(Random random) {
      List<String> out = new ArrayList<>(items.subList(checkedUpTo, items.size()));
      for (int i = 0; i < Math.min(SAMPLE, checkedUpTo); i++) {
        out.add(items.get(random.nextInt(checkedUpTo)));
      }
      return out;
    }

    void checked() {
      checkedUpTo = items.size();
    }
  }
}
