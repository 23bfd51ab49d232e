package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import io.idem.core.seen.SeenItems;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A seen-cache kept on an Idem server, behind the same {@link SeenItems} interface as the cookie
 * one ({@code io.idem.core.seen.SeenCache}): one Bloom filter a user, made on first add for the
 * capacity and rate given (scaling past it, as BF.INSERT's filters do), and forgotten after {@code
 * ttl} without adds. For users with more items than a cookie holds, or several devices.
 *
 * <p>Each add sends BF.INSERT and PEXPIRE together (pipelined on the client's connection): one
 * round trip. Reads send BF.EXISTS or BF.MEXISTS; a user with no filter yet has seen nothing.
 */
public final class ServerSeenCache implements SeenItems {
  private static final Keyword INSERT = Keyword.of("BF.INSERT");
  private static final Keyword PEXPIRE = Keyword.of("PEXPIRE");

  private final IdemClient client;
  private final byte[] key;
  private final long capacity;
  private final double rate;
  private final long ttlMillis;
  private final Bloom bloom;

  ServerSeenCache(IdemClient client, String key, long capacity, double rate, Duration ttl) {
    if (capacity < 1 || !(rate > 0 && rate < 1) || ttl.toMillis() < 1) {
      throw new IllegalArgumentException(
          "capacity ("
              + capacity
              + "), rate ("
              + rate
              + ") and ttl ("
              + ttl
              + ") must be positive");
    }
    this.client = client;
    this.key = key.getBytes(StandardCharsets.UTF_8);
    this.capacity = capacity;
    this.rate = rate;
    this.ttlMillis = ttl.toMillis();
    this.bloom = new Bloom(client, key);
  }

  @Override
  public boolean mightContain(byte[] item) {
    return bloom.mightContain(item);
  }

  @Override
  public List<Boolean> mightContainAll(List<byte[]> items) {
    return items.isEmpty() ? List.of() : bloom.mightContainAll(items);
  }

  @Override
  public boolean add(byte[] item) {
    return Queue.join(insert(List.of(item))).get(0);
  }

  @Override
  public void addAll(List<byte[]> items) {
    if (!items.isEmpty()) {
      Queue.join(insert(items));
    }
  }

  /** Adds the items and renews the time to live; for each, whether it was new. */
  public CompletionStage<List<Boolean>> insert(List<byte[]> items) {
    CommandArgs<byte[], byte[]> args =
        IdemClient.args()
            .addKey(key)
            .add("CAPACITY")
            .add(capacity)
            .add("ERROR")
            .add(Double.toString(rate))
            .add("ITEMS");
    items.forEach(args::add);
    CompletionStage<List<Object>> added = client.array(INSERT, args);
    CompletionStage<List<Object>> expiry =
        client
            .single(
                PEXPIRE,
                new IntegerOutput<>(ByteArrayCodec.INSTANCE),
                IdemClient.args().addKey(key).add(ttlMillis))
            .thenApply(n -> List.of());
    return CompletableFuture.allOf(added.toCompletableFuture(), expiry.toCompletableFuture())
        .thenCompose(done -> added)
        .thenApply(
            r -> {
              List<Boolean> out = new ArrayList<>(r.size());
              for (Object o : r) {
                if (!(o instanceof Long n)) {
                  // An item the server refused (its error in place of the answer).
                  throw new IdemException("BF.INSERT: " + o, null);
                }
                out.add(n == 1);
              }
              return out;
            });
  }
}
