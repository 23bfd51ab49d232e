package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The other filters and sketches, typed: cuckoo filters (CF.*), count-min sketches (CMS.*), top-k
 * (TOPK.*), t-digests (TDIGEST.*), HyperLogLog (PF*) and windowed distinct counts (DISTINCT.*).
 * Each is a small handle on one key, from {@link IdemClient}.
 */
public final class Sketches {

  private Sketches() {}

  private static CommandArgs<byte[], byte[]> args(byte[] key) {
    return IdemClient.args().addKey(key);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static CompletionStage<Long> integer(
      IdemClient c, String command, CommandArgs<byte[], byte[]> args) {
    return c.single(Keyword.of(command), new IntegerOutput<>(ByteArrayCodec.INSTANCE), args);
  }

  private static CompletionStage<Boolean> bool(
      IdemClient c, String command, CommandArgs<byte[], byte[]> args) {
    return c.single(Keyword.of(command), new BooleanOutput<>(ByteArrayCodec.INSTANCE), args);
  }

  private static CompletionStage<List<Object>> array(
      IdemClient c, String command, CommandArgs<byte[], byte[]> args) {
    return c.array(Keyword.of(command), args);
  }

  private static long[] longs(List<Object> r) {
    long[] out = new long[r.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = (Long) r.get(i);
    }
    return out;
  }

  /** A reply of one array of counts a name, as COUNTER.QUERY and DISTINCT.COUNT give it. */
  static Map<String, long[]> perName(List<Object> r, List<String> names) {
    Map<String, long[]> out = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      @SuppressWarnings("unchecked")
      List<Object> counts = (List<Object>) r.get(i);
      out.put(names.get(i), longs(counts));
    }
    return out;
  }

  /** A cuckoo filter: like a Bloom filter, and items can be deleted. */
  public record Cuckoo(IdemClient client, byte[] key) {
    public void reserve(long capacity) {
      Queue.join(array(client, "CF.RESERVE", args(key).add(capacity)));
    }

    public boolean add(byte[] item) {
      return Queue.join(addAsync(item));
    }

    public CompletionStage<Boolean> addAsync(byte[] item) {
      return bool(client, "CF.ADD", args(key).add(item));
    }

    /** Adds the item unless it seems present; true if it was added. */
    public boolean addIfAbsent(byte[] item) {
      return Queue.join(addIfAbsentAsync(item));
    }

    public CompletionStage<Boolean> addIfAbsentAsync(byte[] item) {
      return bool(client, "CF.ADDNX", args(key).add(item));
    }

    public boolean mightContain(byte[] item) {
      return Queue.join(mightContainAsync(item));
    }

    public CompletionStage<Boolean> mightContainAsync(byte[] item) {
      return bool(client, "CF.EXISTS", args(key).add(item));
    }

    /** Deletes one copy of the item; true if one was there. */
    public boolean delete(byte[] item) {
      return Queue.join(deleteAsync(item));
    }

    public CompletionStage<Boolean> deleteAsync(byte[] item) {
      return bool(client, "CF.DEL", args(key).add(item));
    }

    public long count(byte[] item) {
      return Queue.join(integer(client, "CF.COUNT", args(key).add(item)));
    }
  }

  /** A count-min sketch: approximate counts of items, never under the truth. */
  public record CountMin(IdemClient client, byte[] key) {
    /**
     * Sized so a count overshoots by at most {@code error} of the total, failing that with {@code
     * probability}.
     */
    public void reserve(double error, double probability) {
      Queue.join(
          array(
              client,
              "CMS.INITBYPROB",
              args(key).add(Double.toString(error)).add(Double.toString(probability))));
    }

    public void incrBy(Map<byte[], Long> increments) {
      Queue.join(incrByAsync(increments));
    }

    public CompletionStage<Void> incrByAsync(Map<byte[], Long> increments) {
      CommandArgs<byte[], byte[]> a = args(key);
      increments.forEach((item, by) -> a.add(item).add(by));
      return array(client, "CMS.INCRBY", a).thenApply(r -> null);
    }

    public long[] query(List<byte[]> items) {
      return Queue.join(queryAsync(items));
    }

    public CompletionStage<long[]> queryAsync(List<byte[]> items) {
      CommandArgs<byte[], byte[]> a = args(key);
      items.forEach(a::add);
      return array(client, "CMS.QUERY", a).thenApply(Sketches::longs);
    }
  }

  /** A top-k sketch: the k heaviest items of a stream. */
  public record TopK(IdemClient client, byte[] key) {
    public void reserve(int k) {
      Queue.join(array(client, "TOPK.RESERVE", args(key).add(k)));
    }

    public void add(List<byte[]> items) {
      Queue.join(addAsync(items));
    }

    public CompletionStage<Void> addAsync(List<byte[]> items) {
      CommandArgs<byte[], byte[]> a = args(key);
      items.forEach(a::add);
      return array(client, "TOPK.ADD", a).thenApply(r -> null);
    }

    /** The heaviest items with their estimated counts, heaviest first. */
    public Map<String, Long> list() {
      return Queue.join(listAsync());
    }

    public CompletionStage<Map<String, Long>> listAsync() {
      return array(client, "TOPK.LIST", args(key).add("WITHCOUNT"))
          .thenApply(
              r -> {
                Map<String, Long> out = new LinkedHashMap<>();
                for (int i = 0; i + 1 < r.size(); i += 2) {
                  out.put(Queue.text(r.get(i)), (Long) r.get(i + 1));
                }
                return out;
              });
    }
  }

  /** A t-digest: quantiles of a stream of values. */
  public record TDigest(IdemClient client, byte[] key) {
    public void create() {
      Queue.join(array(client, "TDIGEST.CREATE", args(key)));
    }

    public void add(double... values) {
      Queue.join(addAsync(values));
    }

    public CompletionStage<Void> addAsync(double... values) {
      CommandArgs<byte[], byte[]> a = args(key);
      for (double v : values) {
        a.add(Double.toString(v));
      }
      return array(client, "TDIGEST.ADD", a).thenApply(r -> null);
    }

    public double[] quantiles(double... qs) {
      return Queue.join(quantilesAsync(qs));
    }

    public CompletionStage<double[]> quantilesAsync(double... qs) {
      CommandArgs<byte[], byte[]> a = args(key);
      for (double q : qs) {
        a.add(Double.toString(q));
      }
      return array(client, "TDIGEST.QUANTILE", a)
          .thenApply(
              r -> {
                double[] out = new double[r.size()];
                for (int i = 0; i < out.length; i++) {
                  out[i] = Double.parseDouble(Queue.text(r.get(i)));
                }
                return out;
              });
    }
  }

  /** A HyperLogLog: the approximate number of distinct items. */
  public record HyperLogLog(IdemClient client, byte[] key) {
    /** True if the estimate changed. */
    public boolean add(List<byte[]> items) {
      return Queue.join(addAsync(items));
    }

    public CompletionStage<Boolean> addAsync(List<byte[]> items) {
      CommandArgs<byte[], byte[]> a = args(key);
      items.forEach(a::add);
      return integer(client, "PFADD", a).thenApply(n -> n == 1);
    }

    public long count() {
      return Queue.join(countAsync());
    }

    public CompletionStage<Long> countAsync() {
      return integer(client, "PFCOUNT", args(key));
    }
  }

  /** A windowed distinct-count table: how many distinct members each name saw in a window. */
  public record Distinct(IdemClient client, byte[] key) {
    /** Adds members to names at {@code at} (null: now). */
    public void add(@Nullable Instant at, Map<String, byte[]> members) {
      Queue.join(addAsync(at, members));
    }

    public CompletionStage<Void> addAsync(@Nullable Instant at, Map<String, byte[]> members) {
      CommandArgs<byte[], byte[]> a =
          args(key).add(at == null ? "*" : Long.toString(at.toEpochMilli()));
      members.forEach((name, member) -> a.add(name).add(member));
      return array(client, "DISTINCT.ADD", a).thenApply(r -> null);
    }

    /** Each name's distinct members over each window ending at {@code at} (null: now). */
    public Map<String, long[]> count(
        @Nullable Instant at, List<Duration> windows, List<String> names) {
      return Queue.join(countAsync(at, windows, names));
    }

    public CompletionStage<Map<String, long[]>> countAsync(
        @Nullable Instant at, List<Duration> windows, List<String> names) {
      CommandArgs<byte[], byte[]> a =
          args(key).add(at == null ? "*" : Long.toString(at.toEpochMilli()));
      windows.forEach(w -> a.add(Queue.millis(w) + "ms"));
      a.add("NAMES");
      names.forEach(a::add);
      return array(client, "DISTINCT.COUNT", a).thenApply(r -> perName(r, names));
    }
  }

  static byte[] key(String key) {
    return utf8(key);
  }

  static List<byte[]> items(String... items) {
    List<byte[]> out = new ArrayList<>();
    for (String s : items) {
      out.add(utf8(s));
    }
    return out;
  }
}
