package io.idem.client;

import io.idem.client.IdemClient.Keyword;
import io.lettuce.core.protocol.CommandArgs;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * An exact dedup table (DEDUP.*, docs/commands/dedup.md): claims of message ids by owners within a
 * window, so an at-least-once consumer acts on each message once. Ids are {@link UUID}s, sent as
 * their 16 bytes (not 36 characters of text).
 */
public final class Dedup {

  private static final Keyword RESERVE = Keyword.of("DEDUP.RESERVE");
  private static final Keyword CLAIM = Keyword.of("DEDUP.CLAIM");
  private static final Keyword MCLAIM = Keyword.of("DEDUP.MCLAIM");
  private static final Keyword RELEASE = Keyword.of("DEDUP.RELEASE");
  private static final Keyword EXISTS = Keyword.of("DEDUP.EXISTS");

  private final IdemClient client;
  private final byte[] key;

  Dedup(IdemClient client, String key) {
    this.client = client;
    this.key = key.getBytes(StandardCharsets.UTF_8);
  }

  /** What a claim found. */
  public enum Status {
    /** Nobody held the id in the window: the caller does now, and acts on the message. */
    NEW,
    /** The caller already held it (a redelivery to the same owner): act again if unfinished. */
    RETRY,
    /** Another owner holds it: skip the message. */
    DUPLICATE
  }

  /** A claim's status and the owner now holding the id (null where the table keeps none). */
  public record Claim(Status status, @Nullable String owner) {}

  /** Makes an exact table keeping claims for {@code window}. */
  public void reserveExact(Duration window) {
    Queue.join(
        client.array(
            RESERVE, IdemClient.args().addKey(key).add(Queue.millis(window) + "ms").add("EXACT")));
  }

  /**
   * Makes a table keeping Bloom filters of ids for {@code window}: no owners, may say duplicate
   * wrongly at {@code errorRate}.
   */
  public void reserveFilter(Duration window, double errorRate, long capacity) {
    Queue.join(
        client.array(
            RESERVE,
            IdemClient.args()
                .addKey(key)
                .add(Queue.millis(window) + "ms")
                .add("FILTER")
                .add(Double.toString(errorRate))
                .add(capacity)));
  }

  /**
   * Makes a table keeping the most recent {@code slots} ids for {@code window}, with their owners.
   */
  public void reserveRecent(Duration window, long slots) {
    Queue.join(
        client.array(
            RESERVE,
            IdemClient.args()
                .addKey(key)
                .add(Queue.millis(window) + "ms")
                .add("RECENT")
                .add(slots)));
  }

  /** Forgets {@code owner}'s claim of {@code id} (its processing failed); false if not its. */
  public boolean release(UUID id, String owner) {
    return release(bytes(id), owner);
  }

  /** As {@link #release(UUID, String)}, for an id of any bytes (at most 1,024). */
  public boolean release(byte[] id, String owner) {
    return Queue.join(
        client.single(
            RELEASE,
            new io.lettuce.core.output.BooleanOutput<>(
                io.lettuce.core.codec.ByteArrayCodec.INSTANCE),
            IdemClient.args().addKey(key).add(id).add(owner)));
  }

  /** Whether {@code id} is claimed within the window, claiming nothing. */
  public boolean isClaimed(UUID id) {
    return Queue.join(
        client.single(
            EXISTS,
            new io.lettuce.core.output.BooleanOutput<>(
                io.lettuce.core.codec.ByteArrayCodec.INSTANCE),
            IdemClient.args().addKey(key).add(bytes(id))));
  }

  public Claim claim(UUID id, String owner) {
    return Queue.join(claimAsync(id, owner, null));
  }

  /** Claims {@code id} for {@code owner} at event time {@code at} (null: now). */
  public CompletionStage<Claim> claimAsync(UUID id, String owner, @Nullable Instant at) {
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(key).add(bytes(id)).add(owner);
    if (at != null) {
      args.add("AT").add(at.toEpochMilli());
    }
    return client.array(CLAIM, args).thenApply(r -> claim(r.get(0), r.get(1)));
  }

  /** Claims every pair in order, in one command; the claims in the same order. */
  public List<Claim> claimAll(Map<UUID, String> owners) {
    return Queue.join(claimAllAsync(owners));
  }

  public CompletionStage<List<Claim>> claimAllAsync(Map<UUID, String> owners) {
    List<byte[]> ids = new ArrayList<>(owners.size());
    for (UUID id : owners.keySet()) {
      ids.add(bytes(id));
    }
    return claimAllAsync(ids, List.copyOf(owners.values()));
  }

  /**
   * Claims {@code ids.get(i)} for {@code owners.get(i)}, in order, in one command; ids of any bytes
   * (at most 1,024), owners of at most 255. The claims in the same order.
   */
  public List<Claim> claimAll(List<byte[]> ids, List<String> owners) {
    return Queue.join(claimAllAsync(ids, owners));
  }

  public CompletionStage<List<Claim>> claimAllAsync(List<byte[]> ids, List<String> owners) {
    if (ids.size() != owners.size()) {
      throw new IllegalArgumentException(ids.size() + " ids, " + owners.size() + " owners");
    }
    CommandArgs<byte[], byte[]> args = IdemClient.args().addKey(key).add("ITEMS");
    for (int i = 0; i < ids.size(); i++) {
      args.add(ids.get(i)).add(owners.get(i));
    }
    return client
        .array(MCLAIM, args)
        .thenApply(
            r -> {
              List<Claim> out = new ArrayList<>(r.size());
              for (Object o : r) {
                List<?> pair = (List<?>) o;
                out.add(claim(pair.get(0), pair.get(1)));
              }
              return out;
            });
  }

  private static Claim claim(Object status, @Nullable Object owner) {
    return new Claim(
        Status.valueOf(Queue.text(status).toUpperCase(Locale.ROOT)),
        owner == null ? null : Queue.text(owner));
  }

  static byte[] bytes(UUID id) {
    return ByteBuffer.allocate(16)
        .putLong(id.getMostSignificantBits())
        .putLong(id.getLeastSignificantBits())
        .array();
  }
}
