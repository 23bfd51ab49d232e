package io.idem.server.commands.bloom;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.FilterFullException;
import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloom;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/** What the BF.* handlers share: creating a filter, adding items and logging them, replies. */
final class Blooms {

  /** RedisBloom's bf-initial-size, bf-error-rate and bf-expansion-factor defaults. */
  static final long DEFAULT_CAPACITY = ScalableBloomFilter.DEFAULT_CAPACITY;

  static final double DEFAULT_ERROR_RATE = ScalableBloomFilter.DEFAULT_ERROR_RATE;
  static final int DEFAULT_EXPANSION = ScalableBloomFilter.DEFAULT_EXPANSION;

  /** RedisBloom's range of capacities. */
  static final long MAX_CAPACITY = 1L << 30;

  private Blooms() {}

  /** How a new filter is configured. */
  record Params(long capacity, double errorRate, int expansion, boolean scaling) {
    static final Params DEFAULTS =
        new Params(DEFAULT_CAPACITY, DEFAULT_ERROR_RATE, DEFAULT_EXPANSION, true);
  }

  /** The filter at the entry, null if none, WRONGTYPE if another type. */
  static @Nullable ScalableBloomFilter filter(@Nullable Entry e) {
    return Entry.valueOrNull(e, BloomCodec.INSTANCE);
  }

  /** The layouts a new filter may take: the setting bf-layout chooses. */
  enum Layout {
    /** RedisBloom's: a chain of classic Bloom filters, byte for byte as RedisBloom keeps them. */
    CLASSIC,
    /** Idem's: one 512-bit block an item, hashed with {@link io.idem.core.hash.Hash128}. */
    BLOCKED;

    static Layout configured(Call call) {
      return call.server().config().get("bf-layout").equals("blocked") ? BLOCKED : CLASSIC;
    }
  }

  /**
   * Creates the filter at the free key, in the layout bf-layout names, and logs its recipe.
   *
   * @throws CommandException if its memory cannot be had, or the blocked layout cannot build the
   *     rate asked; the key stays free
   */
  static ScalableBloom create(KeyTx tx, Call call, Params p) {
    return Layout.configured(call) == Layout.CLASSIC
        ? createClassic(tx, call.engine(), p)
        : createBlocked(tx, call.engine(), p);
  }

  private static RedisBloomChain createClassic(KeyTx tx, Engine engine, Params p) {
    long bytes;
    try {
      bytes = RedisBloomChain.firstLinkBytes(p.capacity(), p.errorRate(), !p.scaling());
    } catch (ArithmeticException e) {
      throw new CommandException(BloomErrors.NO_MEMORY);
    }
    if (!memoryFits(engine, bytes)) {
      throw new CommandException(BloomErrors.NO_MEMORY);
    }
    RedisBloomChain c;
    try {
      // A non-scaling chain keeps the default growth, as RedisBloom's header shows it.
      c =
          RedisBloomChain.create(
              p.capacity(),
              p.errorRate(),
              p.scaling() ? p.expansion() : DEFAULT_EXPANSION,
              !p.scaling());
    } catch (FilterFullException | OutOfMemoryError e) {
      // Larger than one Java array holds, or that one array failed: nothing else was touched.
      throw new CommandException(BloomErrors.NO_MEMORY);
    }
    return tx.create(RedisBloomCodec.INSTANCE, c, c.dumpHeader());
  }

  private static ScalableBloomFilter createBlocked(KeyTx tx, Engine engine, Params p) {
    double firstRate =
        p.scaling() ? p.errorRate() * ScalableBloomFilter.TIGHTENING_RATIO : p.errorRate();
    if (firstRate < ScalableBloomFilter.MIN_LAYER_ERROR) {
      // Built as asked or refused: never a filter whose rate is quietly higher than asked.
      throw new CommandException(BloomErrors.BLOCKED_RATE_TOO_LOW);
    }
    long bytes;
    try {
      bytes =
          ScalableBloomFilter.layerSizing(
                  p.capacity(), p.errorRate(), p.expansion(), p.scaling(), 0)
              .bytes();
    } catch (IllegalArgumentException e) {
      throw new CommandException(BloomErrors.NO_MEMORY); // more than one Java array holds
    }
    if (!memoryFits(engine, bytes)) {
      throw new CommandException(BloomErrors.NO_MEMORY);
    }
    ScalableBloomFilter f;
    try {
      f =
          p.scaling()
              ? ScalableBloomFilter.create(
                  p.capacity(), p.errorRate(), p.expansion(), BloomCodec.STORAGE)
              : ScalableBloomFilter.createNonScaling(
                  p.capacity(), p.errorRate(), BloomCodec.STORAGE);
    } catch (OutOfMemoryError e) {
      // One large array failed: nothing else was touched, and the heap is as it was.
      throw new CommandException(BloomErrors.NO_MEMORY);
    }
    return tx.create(BloomCodec.INSTANCE, f, f.dumpHeader());
  }

  /**
   * Creates at the free key the empty filter a BF.SCANDUMP header declares, in the layout the
   * header is from ({@link ScalableBloom#fromHeader}), and logs the header as its recipe.
   *
   * @throws CommandException if the header is refused or its memory cannot be had; the key stays
   *     free
   */
  static void createFromHeader(KeyTx tx, Engine engine, byte[] header) {
    ScalableBloom f;
    try {
      f = ScalableBloom.fromHeader(header, bytes -> memoryFits(engine, bytes), BloomCodec.STORAGE);
    } catch (BadDumpException e) {
      throw new CommandException(BloomErrors.refusedDump(e));
    }
    // The layout picks the codec, which replays the same header on restart.
    switch (f) {
      case RedisBloomChain c -> tx.create(RedisBloomCodec.INSTANCE, c, header);
      case ScalableBloomFilter b -> tx.create(BloomCodec.INSTANCE, b, header);
    }
  }

  /** Whether the server may spend {@code bytes} more (see {@link Engine#memoryFits}). */
  static boolean memoryFits(Engine engine, long bytes) {
    return engine.memoryFits(bytes);
  }

  /** What adding one item did. */
  enum Outcome {
    ADDED,
    PRESENT,
    /** A non-scaling filter at capacity: RedisBloom's -2, which ends a list of items. */
    FULL,
    /** A new layer could not be had: RedisBloom's -1, this item's error only. */
    NO_LAYER
  }

  /**
   * Whether the key's filter of either layout may hold the item; false for a free key and, as
   * RedisBloom answers BF.EXISTS, for a key of another type.
   */
  static boolean mayContain(@Nullable Entry e, byte[] item) {
    ScalableBloom f = bloomOrNone(e);
    return f != null && f.mightContainItem(item);
  }

  /** The key's filter of either layout, null for a free key, WRONGTYPE for another type. */
  static @Nullable ScalableBloom bloom(@Nullable Entry e) {
    RedisBloomChain c = chain(e);
    return c != null ? c : filter(e);
  }

  /** The key's filter of either layout, null for a free key or one of another type. */
  static @Nullable ScalableBloom bloomOrNone(@Nullable Entry e) {
    if (e == null) {
      return null;
    }
    if (e.codec() == RedisBloomCodec.INSTANCE) {
      return e.valueAs(RedisBloomCodec.INSTANCE);
    }
    return e.codec() == BloomCodec.INSTANCE ? e.valueAs(BloomCodec.INSTANCE) : null;
  }

  /** A filter in RedisBloom's layout at the entry (moved in from RedisBloom), or null. */
  static @Nullable RedisBloomChain chain(@Nullable Entry e) {
    return e != null && e.codec() == RedisBloomCodec.INSTANCE
        ? e.valueAs(RedisBloomCodec.INSTANCE)
        : null;
  }

  /**
   * Adds the items in arguments {@code [from, argc)} to the key's filter, of either layout; a free
   * key gets a new filter made with {@code createWith}, or {@code ERR not found} if that is null.
   */
  static List<Reply> addToKey(Call call, KeyTx tx, @Nullable Params createWith, int from) {
    ScalableBloom f;
    if (tx.entry() == null) {
      if (createWith == null) {
        throw new CommandException(BloomErrors.NOT_FOUND);
      }
      f = create(tx, call, createWith);
    } else {
      f = bloom(tx.entry());
    }
    return addAll(call, tx, call.engine(), Objects.requireNonNull(f), from);
  }

  /**
   * Adds the items in arguments {@code [from, argc)}, one reply each, as RedisBloom does: the error
   * of a full non-scaling filter ends the list, a failed growth is that item's error only. The
   * items added are logged in one ADD, also when something throws half-way.
   */
  private static List<Reply> addAll(Call call, KeyTx tx, Engine engine, ScalableBloom f, int from) {
    int argc = call.argc();
    List<Reply> replies = new ArrayList<>(argc - from);
    long[] pair = new long[2];
    long[] added = new long[2 * Math.clamp(argc - from, 1, 1024)];
    int n = 0;
    try {
      for (int i = from; i < argc; i++) {
        f.hash(call.arg(i), pair);
        Outcome o = add(engine, f, pair[0], pair[1]);
        if (o == Outcome.ADDED) {
          if (n == added.length) {
            added = Arrays.copyOf(added, 2 * added.length);
          }
          added[n++] = pair[0];
          added[n++] = pair[1];
        }
        replies.add(reply(call, o));
        if (o == Outcome.FULL) {
          break;
        }
      }
    } finally {
      if (n > 0) {
        tx.log(BloomCodec.OP_ADD, BloomCodec.addPayload(added, n));
      }
    }
    return replies;
  }

  /** Adds the item of this hash pair to a filter of either layout. */
  static Outcome add(Engine engine, ScalableBloom f, long a, long b) {
    // Only an item that opens a new layer allocates: check that layer's memory first.
    if (f.isScaling()
        && f.needsNewLayer()
        && !f.mightContain(a, b)
        && !memoryFits(engine, f.bytesOfNextLayer())) {
      return Outcome.NO_LAYER;
    }
    try {
      return f.add(a, b) ? Outcome.ADDED : Outcome.PRESENT;
    } catch (FilterFullException e) {
      return f.isScaling() ? Outcome.NO_LAYER : Outcome.FULL;
    } catch (OutOfMemoryError e) {
      return Outcome.NO_LAYER; // the new layer's one array failed; the filter is unchanged
    }
  }

  static Reply reply(Call call, Outcome o) {
    return switch (o) {
      case ADDED -> bool(call, true);
      case PRESENT -> bool(call, false);
      case FULL -> NON_SCALING_FULL;
      case NO_LAYER -> PROBLEM_INSERTING;
    };
  }

  private static final Reply NON_SCALING_FULL = Reply.error(BloomErrors.NON_SCALING_FULL);
  private static final Reply PROBLEM_INSERTING = Reply.error(BloomErrors.PROBLEM_INSERTING);

  static boolean resp3(Call call) {
    return call.session().protocol() == 3;
  }

  /** RedisBloom's yes/no: a boolean under RESP3, 1 or 0 under RESP2. */
  static Reply bool(Call call, boolean b) {
    return resp3(call) ? new Reply.Bool(b) : Reply.integer(b ? 1 : 0);
  }
}
