package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

/** A Bloom filter (BF.*, docs/commands/bf.md): items are bytes, answers booleans. */
public final class Bloom {

  private static final Keyword RESERVE = Keyword.of("BF.RESERVE");
  private static final Keyword ADD = Keyword.of("BF.ADD");
  private static final Keyword MADD = Keyword.of("BF.MADD");
  private static final Keyword EXISTS = Keyword.of("BF.EXISTS");
  private static final Keyword MEXISTS = Keyword.of("BF.MEXISTS");

  private final IdemClient client;
  private final byte[] key;

  Bloom(IdemClient client, String key) {
    this.client = client;
    this.key = key.getBytes(StandardCharsets.UTF_8);
  }

  /** Makes a filter for {@code capacity} items at {@code errorRate} false positives. */
  public void reserve(double errorRate, long capacity) {
    Queue.join(
        client.array(
            RESERVE, IdemClient.args().addKey(key).add(Double.toString(errorRate)).add(capacity)));
  }

  /** Adds the item: true if it was new (false: it was there, or is a false positive). */
  public boolean add(byte[] item) {
    return Queue.join(addAsync(item));
  }

  public CompletionStage<Boolean> addAsync(byte[] item) {
    return client.single(
        ADD, new BooleanOutput<>(ByteArrayCodec.INSTANCE), IdemClient.args().addKey(key).add(item));
  }

  /** Adds each item; for each, whether it was new. */
  public List<Boolean> addAll(List<byte[]> items) {
    return Queue.join(addAllAsync(items));
  }

  public CompletionStage<List<Boolean>> addAllAsync(List<byte[]> items) {
    return booleans(MADD, items);
  }

  /** False: the item was never added. True: it was, or is a false positive at the filter's rate. */
  public boolean mightContain(byte[] item) {
    return Queue.join(mightContainAsync(item));
  }

  public CompletionStage<Boolean> mightContainAsync(byte[] item) {
    return client.single(
        EXISTS,
        new BooleanOutput<>(ByteArrayCodec.INSTANCE),
        IdemClient.args().addKey(key).add(item));
  }

  public List<Boolean> mightContainAll(List<byte[]> items) {
    return Queue.join(mightContainAllAsync(items));
  }

  public CompletionStage<List<Boolean>> mightContainAllAsync(List<byte[]> items) {
    return booleans(MEXISTS, items);
  }

  private CompletionStage<List<Boolean>> booleans(Keyword command, List<byte[]> items) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(key);
    items.forEach(args::add);
    return client
        .array(command, args)
        .thenApply(
            r -> {
              List<Boolean> out = new ArrayList<>(r.size());
              for (Object o : r) {
                out.add(o instanceof Long n && n == 1);
              }
              return out;
            });
  }
}
