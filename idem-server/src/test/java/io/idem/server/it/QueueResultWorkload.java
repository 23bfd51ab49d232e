package io.idem.server.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The crash test's results: a queue that keeps results for a day; jobs added, leased and completed
 * with a result of their own (QUEUE.COMPLETE ... RESULT), pipelined. After a restart every
 * acknowledged completion's result reads back byte for byte (QUEUE.RESULT), and its job is gone.
 */
final class QueueResultWorkload extends CrashWorkload {

  private static final String KEY = "results";

  /** Results of acknowledged completions, by job id. */
  private final Map<String, String> done = new HashMap<>();

  private long next;

  QueueResultWorkload() {
    super("QUEUE.COMPLETE with RESULT, QUEUE.RESULT");
  }

  @Override
  void create(RespClient c) throws IOException {
    list(c.call("QUEUE.CONFIG", KEY, "RESULTS", "1d"), "CONFIG RESULTS");
  }

  private static String result(String id) {
    return "result of " + id + " " + "r".repeat(id.length() * 13 % 200);
  }

  @Override
  void batch(RespClient c, Random random) throws IOException {
    int n = 1 + random.nextInt(10);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = "res-" + next++;
      ids.add(id);
      c.send("QUEUE.ADD", KEY, "work", "ID", id);
    }
    c.send("QUEUE.RESERVE", KEY, "COUNT", Integer.toString(n), "LEASE", "1h");
    c.flush();
    for (String id : ids) {
      list(c.read(), "QUEUE.ADD " + id);
      acknowledged++;
    }
    List<String[]> leased = new ArrayList<>();
    for (Object job : list(c.read(), "QUEUE.RESERVE")) {
      List<?> f = (List<?>) job;
      leased.add(new String[] {RespClient.text(f.get(0)), Long.toString((Long) f.get(2))});
    }
    acknowledged++;
    for (String[] j : leased) {
      c.send("QUEUE.COMPLETE", KEY, j[0], j[1], "RESULT", result(j[0]));
    }
    c.flush();
    for (String[] j : leased) {
      assertThat(RespClient.text(c.read())).as("COMPLETE %s", j[0]).isEqualTo("done");
      done.put(j[0], result(j[0]));
      acknowledged++;
    }
  }

  @Override
  void verify(RespClient c, Random random) throws IOException {
    for (Map.Entry<String, String> e : done.entrySet()) {
      List<?> r = list(c.call("QUEUE.RESULT", KEY, e.getKey()), "result of " + e.getKey());
      assertThat(RespClient.text(r.get(7))).as("result of %s", e.getKey()).isEqualTo(e.getValue());
      assertThat(c.call("QUEUE.JOB", KEY, e.getKey())).as("completed %s", e.getKey()).isNull();
    }
  }
}
