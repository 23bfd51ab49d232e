package io.idem.server.commands.cuckoo;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.FilterFullException;
import io.idem.core.hash.Hash128;
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

  /** RedisBloom's fingerprints: one byte. */
  static final int FINGERPRINT_BITS = CuckooFilter.DEFAULT_FINGERPRINT_BITS;

  private Cuckoos() {}

  /** The filter at the entry, null if none, WRONGTYPE if another type. */
  static @Nullable CuckooFilter filter(@Nullable Entry e) {
    return Entry.valueOrNull(e, CuckooCodec.INSTANCE);
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
    return tx.create(CuckooCodec.INSTANCE, f, CuckooDump.header(f));
  }

  /** Whether the server may spend {@code bytes} more (see {@link Engine#memoryFits}). */
  static boolean memoryFits(Engine engine, long bytes) {
    return engine.memoryFits(bytes);
  }

  /** The hashes of arguments {@code [from, argc)}, as (h1, h2) pairs. */
  static long[] hashes(Call call, int from) {
    long[] out = new long[2 * (call.argc() - from)];
    Hash128 h = new Hash128();
    for (int i = from; i < call.argc(); i++) {
      h.hash(call.arg(i));
      out[2 * (i - from)] = h.h1();
      out[2 * (i - from) + 1] = h.h2();
    }
    return out;
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

  static Outcome insert(Engine engine, CuckooFilter f, long h1, long h2, boolean nx) {
    if (nx && f.mightContain(h1, h2)) {
      return Outcome.EXISTS;
    }
    // Growth allocates: allowed only if the next sub-table fits the memory the server may spend.
    long growth = f.growthBytes();
    boolean mayGrow = growth >= 0 && memoryFits(engine, growth);
    try {
      f.insert(h1, h2, mayGrow);
      return Outcome.INSERTED;
    } catch (FilterFullException e) {
      return f.expansion() == 0 ? Outcome.FULL : Outcome.NO_MEMORY;
    } catch (OutOfMemoryError e) {
      return Outcome.NO_MEMORY; // the new sub-table's one array failed; the filter is unchanged
    }
  }

  /**
   * The filter of an insert command: the one at the key, else a new one if {@code create}, else
   * "ERR not found". RedisBloom refuses any insert into a filter at its limit of sub-tables.
   */
  static CuckooFilter forInsert(KeyTx tx, Engine engine, boolean create, long capacity) {
    CuckooFilter f = filter(tx.entry());
    if (f == null) {
      if (!create) {
        throw new CommandException(CuckooErrors.NOT_FOUND);
      }
      f =
          create(
              tx, engine, capacity, DEFAULT_BUCKET_SIZE, DEFAULT_MAX_ITERATIONS, DEFAULT_EXPANSION);
    }
    if (f.tableCount() >= CuckooFilter.MAX_TABLES) {
      throw new CommandException(CuckooErrors.MAX_EXPANSIONS);
    }
    return f;
  }

  /**
   * Inserts the items hashed in {@code hashes}, one reply each as CF.INSERT (or CF.INSERTNX when
   * {@code nx}) replies: a failed item is -1 and the rest go on. The items inserted are logged in
   * one operation, also when something throws half-way.
   */
  static List<Reply> insertAll(Call call, KeyTx tx, CuckooFilter f, long[] hashes, boolean nx) {
    int n = hashes.length / 2;
    List<Reply> replies = new ArrayList<>(n);
    long[] inserted = new long[Math.min(hashes.length, 2048)];
    int logged = 0;
    try {
      for (int i = 0; i < n; i++) {
        long h1 = hashes[2 * i];
        long h2 = hashes[2 * i + 1];
        Outcome o = insert(call.engine(), f, h1, h2, nx);
        if (o == Outcome.INSERTED) {
          if (logged == inserted.length) {
            inserted = Arrays.copyOf(inserted, 2 * inserted.length);
          }
          inserted[logged++] = h1;
          inserted[logged++] = h2;
        }
        replies.add(multiReply(call, o, nx));
      }
    } finally {
      if (logged > 0) {
        tx.log(
            nx ? CuckooCodec.OP_ADD_NX : CuckooCodec.OP_ADD, CuckooCodec.pairs(inserted, logged));
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
