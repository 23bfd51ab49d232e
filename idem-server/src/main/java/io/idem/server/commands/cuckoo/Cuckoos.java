package io.idem.server.commands.cuckoo;

import io.idem.core.filter.BadDumpException;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RedisBloomCuckoo;
import io.idem.core.filter.ScalableCuckoo;
import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the CF.* handlers share: creating a filter, inserting and logging items, replies. */
final class Cuckoos {

  /** RedisBloom's cf-initial-size, cf-bucket-size, cf-max-iterations, cf-expansion-factor. */
  static final long DEFAULT_CAPACITY = 1024;

  static final int DEFAULT_BUCKET_SIZE = CuckooFilter.DEFAULT_BUCKET_SIZE;
  static final int DEFAULT_MAX_ITERATIONS = CuckooFilter.DEFAULT_MAX_ITERATIONS;
  static final int DEFAULT_EXPANSION = CuckooFilter.DEFAULT_EXPANSION;

  /** The largest capacity CF.RESERVE and CF.INSERT accept: RedisBloom's, which a dump carries. */
  static final long MAX_CAPACITY = CuckooFilter.MAX_DUMP_CAPACITY;

  /** RedisBloom's fingerprints: one byte. */
  static final int FINGERPRINT_BITS = CuckooFilter.DEFAULT_FINGERPRINT_BITS;

  private Cuckoos() {}

  /** The filter at the entry, of either layout; null if none, WRONGTYPE if another type. */
  static @Nullable ScalableCuckoo filter(@Nullable Entry e) {
    RedisBloomCuckoo moved = RedisCuckoos.of(e);
    return moved != null ? moved : Entry.valueOrNull(e, CuckooCodec.INSTANCE);
  }

  /**
   * A filter in Idem's layout at the entry; null if none or RedisBloom's, WRONGTYPE if another
   * type.
   */
  static @Nullable CuckooFilter own(@Nullable Entry e) {
    return RedisCuckoos.of(e) != null ? null : Entry.valueOrNull(e, CuckooCodec.INSTANCE);
  }

  /** What the log keeps of items given by hash pairs {@code pairs[0, count)}: the layout's own. */
  static byte[] payload(ScalableCuckoo f, long[] pairs, int count) {
    if (f instanceof RedisBloomCuckoo) {
      long[] hashes = new long[count / 2];
      for (int i = 0; i < hashes.length; i++) {
        hashes[i] = pairs[2 * i];
      }
      return RedisCuckooCodec.hashes(hashes);
    }
    return CuckooCodec.pairs(pairs, count);
  }

  /**
   * Creates a filter with 8-bit fingerprints at the free key and logs its recipe.
   *
   * @throws CommandException if its memory cannot be had; the key stays free
   */
  static CuckooFilter create(
      KeyTx tx, Engine engine, long capacity, int bucketSize, int maxIterations, int expansion) {
    long bytes =
        CuckooFilter.sizingWithFingerprintBits(
                capacity, FINGERPRINT_BITS, bucketSize, maxIterations)
            .bytes();
    if (!memoryFits(engine, bytes)) {
      throw new CommandException(CuckooErrors.NO_MEMORY_TO_CREATE);
    }
    CuckooFilter f;
    try {
      f =
          CuckooFilter.createWithFingerprintBits(
              capacity, FINGERPRINT_BITS, bucketSize, maxIterations, expansion);
    } catch (OutOfMemoryError e) {
      // Its one large array failed: nothing else was touched.
      throw new CommandException(CuckooErrors.NO_MEMORY_TO_CREATE);
    }
    return tx.create(CuckooCodec.INSTANCE, f, f.dumpHeader());
  }

  /**
   * Creates at the free key the empty filter a CF.SCANDUMP header declares, in the layout the
   * header is from ({@link ScalableCuckoo#fromHeader}), and logs the header as its recipe.
   *
   * @throws CommandException if the header is refused or its memory cannot be had; the key stays
   *     free
   */
  static void createFromHeader(KeyTx tx, Engine engine, byte[] header) {
    ScalableCuckoo f;
    try {
      f = ScalableCuckoo.fromHeader(header, bytes -> memoryFits(engine, bytes));
    } catch (BadDumpException e) {
      throw new CommandException(CuckooErrors.refusedDump(e));
    }
    // The layout picks the codec, which replays the same header on restart.
    switch (f) {
      case RedisBloomCuckoo r -> tx.create(RedisCuckooCodec.INSTANCE, r, header);
      case CuckooFilter c -> tx.create(CuckooCodec.INSTANCE, c, header);
    }
  }

  /** Whether the server may spend {@code bytes} more (see {@link Engine#memoryFits}). */
  static boolean memoryFits(Engine engine, long bytes) {
    return engine.memoryFits(bytes);
  }

  /** What inserting one item did: RedisBloom's CuckooInsertStatus. */
  enum Outcome {
    INSERTED,
    /** ADDNX: the item may be present; nothing changed. */
    EXISTS,
    /** Kicks failed and the filter does not grow (expansion 0): nothing changed. */
    FULL,
    /** Kicks failed and no sub-table could be added: nothing changed. */
    NO_MEMORY
  }

  static Outcome insert(Engine engine, ScalableCuckoo f, long a, long b, boolean nx) {
    // Growth allocates: allowed only if the next sub-filter fits the memory the server may spend.
    long growth = f.bytesOfNextFilter();
    boolean mayGrow = growth >= 0 && memoryFits(engine, growth);
    try {
      return switch (f.insert(a, b, nx, mayGrow)) {
        case INSERTED -> Outcome.INSERTED;
        case EXISTS -> Outcome.EXISTS;
        case NO_SPACE -> Outcome.FULL;
        case TOO_LARGE -> Outcome.NO_MEMORY;
      };
    } catch (OutOfMemoryError e) {
      return Outcome.NO_MEMORY; // the new sub-filter's one array failed; the filter is unchanged
    }
  }

  /**
   * The filter of an insert command, of either layout: the one at the key, else a new one of Idem's
   * if {@code create}, else "ERR not found". RedisBloom refuses any insert into a filter at its
   * limit of sub-filters.
   */
  static ScalableCuckoo forInsert(KeyTx tx, Engine engine, boolean create, long capacity) {
    ScalableCuckoo f = filter(tx.entry());
    if (f == null) {
      if (!create) {
        throw new CommandException(CuckooErrors.NOT_FOUND);
      }
      f =
          create(
              tx, engine, capacity, DEFAULT_BUCKET_SIZE, DEFAULT_MAX_ITERATIONS, DEFAULT_EXPANSION);
    }
    if (f.atFilterLimit()) {
      throw new CommandException(CuckooErrors.MAX_EXPANSIONS);
    }
    return f;
  }

  /**
   * Inserts the items in arguments {@code [from, argc)}, one reply each as CF.INSERT (or
   * CF.INSERTNX when {@code nx}) replies: a failed item is -1 and the rest go on. The items
   * inserted are logged in one operation, also when something throws half-way.
   */
  static List<Reply> insertAll(Call call, KeyTx tx, ScalableCuckoo f, int from, boolean nx) {
    int n = call.argc() - from;
    List<Reply> replies = new ArrayList<>(n);
    long[] inserted = new long[Math.clamp(2L * n, 2, 2048)];
    long[] pair = new long[2];
    int logged = 0;
    try {
      for (int i = from; i < call.argc(); i++) {
        f.hash(call.arg(i), pair);
        Outcome o = insert(call.engine(), f, pair[0], pair[1], nx);
        if (o == Outcome.INSERTED) {
          if (logged == inserted.length) {
            inserted = Arrays.copyOf(inserted, 2 * inserted.length);
          }
          inserted[logged++] = pair[0];
          inserted[logged++] = pair[1];
        }
        replies.add(multiReply(call, o, nx));
      }
    } finally {
      if (logged > 0) {
        tx.log(nx ? CuckooCodec.OP_ADD_NX : CuckooCodec.OP_ADD, payload(f, inserted, logged));
      }
    }
    return replies;
  }

  // RedisBloom's per-item replies: CF.INSERTNX always integers; CF.INSERT booleans under RESP3,
  // where a failure is false, and under RESP2 1 or -1.
  static Reply multiReply(Call call, Outcome o, boolean nx) {
    boolean bools = resp3(call) && !nx;
    return switch (o) {
      case INSERTED -> bools ? new Reply.Bool(true) : Reply.ONE;
      case EXISTS -> Reply.ZERO;
      case FULL, NO_MEMORY -> bools ? new Reply.Bool(false) : MINUS_ONE;
    };
  }

  private static final Reply MINUS_ONE = Reply.integer(-1);

  static boolean resp3(Call call) {
    return call.session().protocol() == 3;
  }

  /** RedisBloom's yes/no: a boolean under RESP3, 1 or 0 under RESP2. */
  static Reply bool(Call call, boolean b) {
    return resp3(call) ? new Reply.Bool(b) : Reply.integer(b ? 1 : 0);
  }
}
