package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * A windowed counter table (COUNTER.*, docs/commands/counter.md): exact counts of names, summed
 * over windows such as the last hour, day or week.
 */
public final class Counters {

  private static final Keyword INCRBY = Keyword.of("COUNTER.INCRBY");
  private static final Keyword QUERY = Keyword.of("COUNTER.QUERY");
  private static final Keyword ALLOW = Keyword.of("COUNTER.ALLOW");

  /**
   * What {@link #allow} answered: whether the request was let through and counted, how many more
   * fit now, and when the window next lets more through ({@code null}: the cost never fits).
   */
  public record Allowance(boolean allowed, long remaining, @Nullable Duration reset) {}

  private final IdemClient client;
  private final byte[] key;

  Counters(IdemClient client, String key) {
    this.client = client;
    this.key = key.getBytes(StandardCharsets.UTF_8);
  }

  /** Adds to each name's count at {@code at} (null: now); how many resolutions counted it. */
  public int incrBy(@Nullable Instant at, Map<String, Long> increments) {
    return Queue.join(incrByAsync(at, increments));
  }

  public CompletionStage<Integer> incrByAsync(@Nullable Instant at, Map<String, Long> increments) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(key).add(at == null ? "*" : Long.toString(at.toEpochMilli()));
    increments.forEach((name, by) -> args.add(name).add(by));
    return client
        .single(INCRBY, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
        .thenApply(Long::intValue);
  }

  /**
   * Each name's counts over each window ending at {@code at} (null: now), in the windows' order.
   */
  public Map<String, long[]> query(
      @Nullable Instant at, List<Duration> windows, List<String> names) {
    return Queue.join(queryAsync(at, windows, names));
  }

  public CompletionStage<Map<String, long[]>> queryAsync(
      @Nullable Instant at, List<Duration> windows, List<String> names) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args().addKey(key).add(at == null ? "*" : Long.toString(at.toEpochMilli()));
    windows.forEach(w -> args.add(Queue.millis(w) + "ms"));
    args.add("NAMES");
    names.forEach(args::add);
    return client.array(QUERY, args).thenApply(r -> Sketches.perName(r, names));
  }

  /**
   * A sliding-window limit: lets {@code name} through, counting {@code cost}, if its count in the
   * last {@code window} stays within {@code limit} (COUNTER.ALLOW).
   */
  public Allowance allow(String name, long limit, Duration window, long cost) {
    return Queue.join(allowAsync(name, limit, window, cost));
  }

  public CompletionStage<Allowance> allowAsync(
      String name, long limit, Duration window, long cost) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args()
            .addKey(key)
            .add("*")
            .add(name)
            .add(limit)
            .add(Queue.millis(window) + "ms")
            .add("COST")
            .add(cost);
    return client
        .array(ALLOW, args)
        .thenApply(
            r -> {
              long reset = (Long) r.get(2);
              return new Allowance(
                  (Long) r.get(0) == 1,
                  (Long) r.get(1),
                  reset < 0 ? null : Duration.ofMillis(reset));
            });
  }
}
