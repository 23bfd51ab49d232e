package io.idem.server.engine;

import io.idem.core.store.RowChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The keyspace: keys to resident values, with per-key striped locks, expiry and memory accounting.
 * Every change is handed to the {@link Journal} under the key's lock, so the journal sees changes
 * to one key in the order they happened.
 *
 * <p>Lock order: stripes in ascending index, never more than the keys of one command.
 */
public final class Engine implements AutoCloseable {

  private static final int STRIPES = 4096;

  private final Keyspace keys = new Keyspace();
  private final ReentrantLock[] stripes = new ReentrantLock[STRIPES];
  private final ConcurrentSkipListSet<Expiry> expiries = new ConcurrentSkipListSet<>();

  /**
   * On a node with a log: where keys due by this node's clock go to become a record, instead of
   * being deleted here; null on a server alone.
   */
  private volatile @Nullable DueKeys dueKeys;

  /** Takes the keys whose expiry came by the clock, on a node where only the log deletes. */
  /** Where a node with a log sends the work its clock starts, to become records. */
  public interface DueKeys {
    /**
     * The key's expiry at {@code atMillis} has come by this node's clock: ask the log to delete it.
     * False if it was asked already and the record has not been applied yet.
     */
    boolean due(byte[] key, long atMillis);

    /**
     * The key's value has a window that this node's clock has moved past (dedup slices that left
     * it, counter rows past their retention): ask the log to move it. False if it was asked already
     * and the record has not been applied yet.
     */
    boolean windowDue(byte[] key);

    /**
     * The value at the key has work this node's clock started that a command of its own does
     * ({@code command}, its words, the key among them: a queue's QUEUE.FIRE): ask the log for it.
     * False if such a command was asked for the key already and its record is not applied yet.
     */
    boolean ask(byte[] key, byte[][] command);
  }

  /**
   * On a node with a log, asks the log for {@code command} on the entry's key (see {@link
   * DueKeys#ask}) and returns true; elsewhere returns false, and the caller does the work.
   */
  public boolean askByLog(Entry e, byte[][] command) {
    DueKeys sink = dueKeys;
    if (sink == null) {
      return false;
    }
    sink.ask(e.key().bytes(), command);
    return true;
  }

  /**
   * On a node with a log, hands the entry's key to the log to move its window (see {@link
   * DueKeys#windowDue}) and returns true; elsewhere returns false, and the caller moves it.
   */
  public boolean windowByLog(Entry e) {
    DueKeys sink = dueKeys;
    if (sink == null) {
      return false;
    }
    sink.windowDue(e.key().bytes());
    return true;
  }

  /**
   * WINDOWDUE: moves the key's window to now (a record's time, on a node with a log): see {@link
   * ValueCodec#moveWindow}. True if it dropped anything.
   */
  public boolean moveWindow(byte[] key) {
    return write(
        key,
        tx -> {
          Entry e = tx.entry();
          if (e == null) {
            return false;
          }
          @SuppressWarnings("unchecked")
          ValueCodec<Object> codec = (ValueCodec<Object>) e.codec();
          return codec.moveWindow(tx, e.value(), now());
        });
  }

  /**
   * Makes this a node whose keys expire by the log only: a read treats a key whose time has come as
   * absent but leaves it; applying a record deletes the record's keys whose time came by the
   * record's time; and the keys due by the clock go to {@code sink}, to become records. So every
   * node applying the same records deletes the same keys at the same point of the log.
   */
  public void expireByLog(DueKeys sink) {
    this.dueKeys = sink;
  }

  /** Whether keys expire by the log only (see {@link #expireByLog}). */
  public boolean expiresByLog() {
    return dueKeys != null;
  }

  private final AtomicLong nextId;
  private final Footprint dataset = new Footprint();
  private final LongAdder expiredKeys = new LongAdder();

  /**
   * The keys of each listed type (see {@link ValueCodec#listed}), by type id: what INFO and the
   * metrics endpoint show one by one, found without a walk of the keyspace.
   */
  private final Map<Byte, java.util.Set<Key>> listed = new ConcurrentHashMap<>();

  private void listedAdd(Entry e) {
    if (e.codec().listed()) {
      listed.computeIfAbsent(e.codec().typeId(), t -> ConcurrentHashMap.newKeySet()).add(e.key());
    }
  }

  private void listedRemove(Entry e) {
    if (e.codec().listed()) {
      java.util.Set<Key> set = listed.get(e.codec().typeId());
      if (set != null) {
        set.remove(e.key());
      }
    }
  }

  /**
   * Up to {@code limit} keys holding the listed type (see {@link ValueCodec#listed}), in no order;
   * O(limit), whatever the keyspace holds.
   */
  public List<byte[]> keysOf(ValueCodec<?> codec, int limit) {
    java.util.Set<Key> set = listed.get(codec.typeId());
    List<byte[]> out = new ArrayList<>();
    if (set != null) {
      for (Key k : set) {
        if (out.size() >= limit) {
          break;
        }
        out.add(k.bytes());
      }
    }
    return out;
  }

  /** How many keys hold the listed type; O(1). */
  public int countOf(ValueCodec<?> codec) {
    java.util.Set<Key> set = listed.get(codec.typeId());
    return set == null ? 0 : set.size();
  }

  /**
   * Values with background work, by when it is next due (see {@link ValueCodec#background}): a
   * round visits the due ones only, however many values wait.
   */
  private final ConcurrentSkipListSet<Visit> visits = new ConcurrentSkipListSet<>();

  /** A value's next background visit. Each entry holds its own, so deleting it removes it. */
  record Visit(long at, long id, Entry entry) implements Comparable<Visit> {
    @Override
    public int compareTo(Visit o) {
      int c = Long.compare(at, o.at);
      return c != 0 ? c : Long.compare(id, o.id);
    }
  }

  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongSupplier clock;
  private final Waits waits = new Waits(this);
  private volatile Journal journal;
  private volatile long maxMemory;

  /** An expiry to act on: the entry's id tells a stale record from the current one. */
  private record Expiry(long atMillis, long id, Key key) implements Comparable<Expiry> {
    @Override
    public int compareTo(Expiry o) {
      int c = Long.compare(atMillis, o.atMillis);
      return c != 0 ? c : Long.compare(id, o.id);
    }
  }

  /**
   * @param firstId the first value id to hand out: above every id on disk
   * @param clock millis since the epoch
   */
  public Engine(Journal journal, long firstId, LongSupplier clock) {
    this.journal = journal;
    this.nextId = new AtomicLong(firstId);
    this.clock = clock;
    for (int i = 0; i < STRIPES; i++) {
      stripes[i] = new ReentrantLock();
    }
  }

  /** An engine that keeps nothing on disk, for handler tests. */
  public static Engine inMemory() {
    return new Engine(Journal.none(), 1, System::currentTimeMillis);
  }

  /** The rows of stored values (exact dedup tables), read under the key's lock. */
  public Rows rows() {
    return journal.rows();
  }

  public Journal journal() {
    return journal;
  }

  /** The replies waiting for a key to change (blocked reserves, waiting begins). */
  public Waits waits() {
    return waits;
  }

  /** Replaces the journal once the store has loaded the keyspace (start-up only). */
  public void attach(Journal journal) {
    this.journal = journal;
  }

  /**
   * The time commands see: the clock's, or the one {@link #at} fixes. Expiry, windows and slices
   * all read it here.
   */
  public long now() {
    return FIXED_NOW.isBound() ? FIXED_NOW.get() : clock.getAsLong();
  }

  private static final ScopedValue<Long> FIXED_NOW = ScopedValue.newInstance();

  /**
   * Runs {@code work} on this thread with {@link #now} fixed at {@code millis}: how a cluster node
   * applies a record, at the record's timestamp, so that every node applying it computes the same
   * result whenever it does.
   */
  public <T> T at(long millis, java.util.function.Supplier<T> work) {
    return ScopedValue.where(FIXED_NOW, millis).call(work::get);
  }

  // ---- one key

  /**
   * Runs {@code f} on the key's live entry (or null) under the key's lock: a command's read, which
   * INFO counts as a keyspace hit or miss.
   */
  public <R> R read(byte[] key, Function<@Nullable Entry, R> f) {
    return read(key, f, true);
  }

  /** As {@link #read} without counting a hit or miss: the server looking, not a client. */
  public <R> R peek(byte[] key, Function<@Nullable Entry, R> f) {
    return read(key, f, false);
  }

  private <R> R read(byte[] key, Function<@Nullable Entry, R> f, boolean count) {
    Key k = new Key(key);
    ReentrantLock lock = lockOf(k);
    lock.lock();
    try {
      Entry e = live(k);
      if (count) {
        (e == null ? misses : hits).increment();
      }
      return f.apply(e);
    } finally {
      lock.unlock();
    }
  }

  /** Reads of a live key (INFO keyspace_hits). */
  public long keyspaceHits() {
    return hits.sum();
  }

  /** Reads of a missing key (INFO keyspace_misses). */
  public long keyspaceMisses() {
    return misses.sum();
  }

  /** CONFIG RESETSTAT: zeroes the counters INFO stats shows. */
  public void resetStats() {
    hits.reset();
    misses.reset();
    expiredKeys.reset();
  }

  /** Runs {@code f} with a write transaction on the key, under the key's lock. */
  public <R> R write(byte[] key, Function<KeyTx, R> f) {
    Key k = new Key(key);
    ReentrantLock lock = lockOf(k);
    lock.lock();
    journal.beginCommand();
    try {
      Tx tx = new Tx(k);
      try {
        return f.apply(tx);
      } finally {
        tx.remeasure();
      }
    } finally {
      // Under the key's lock still: a snapshot of the key sees the command's changes queued.
      journal.endCommand();
      lock.unlock();
    }
  }

  /**
   * Runs {@code f} with a write transaction on {@code key} while the keys {@code others} are locked
   * too, so it may read their live entries (through the function it is given, which takes only
   * those keys) as of one instant: a command that writes one key from several (CMS.MERGE).
   */
  public <R> R writeWith(
      byte[] key,
      List<byte[]> others,
      java.util.function.BiFunction<KeyTx, Function<byte[], @Nullable Entry>, R> f) {
    Key k = new Key(key);
    java.util.Set<Key> readable = new java.util.HashSet<>();
    int[] indexes = new int[others.size() + 1];
    indexes[0] = stripeIndex(k);
    for (int i = 0; i < others.size(); i++) {
      Key o = new Key(others.get(i));
      readable.add(o);
      indexes[i + 1] = stripeIndex(o);
    }
    int[] order = Arrays.stream(indexes).sorted().distinct().toArray(); // the lock order
    for (int i : order) {
      stripes[i].lock();
    }
    journal.beginCommand();
    Tx tx = null;
    try {
      Tx mine = new Tx(k);
      tx = mine;
      return f.apply(
          mine,
          other -> {
            Key o = new Key(other);
            if (!readable.contains(o)) {
              throw new IllegalArgumentException("key not locked for this command");
            }
            if (o.equals(k)) {
              return mine.entry();
            }
            Entry e = live(o);
            (e == null ? misses : hits).increment();
            return e;
          });
    } finally {
      try {
        if (tx != null) {
          tx.remeasure();
        }
      } finally {
        journal.endCommand();
      }
      for (int i = order.length - 1; i >= 0; i--) {
        stripes[order[i]].unlock();
      }
    }
  }

  // ---- transactions

  /**
   * Opens a transaction (EXEC): locks the stripes of {@code keys}, or every stripe when null, in
   * stripe order, and opens one journal command, so the commands run inside see and change those
   * keys as of one instant and their changes reach the log as one group. Commands inside take the
   * same locks again (they are reentrant); one that locks a key outside {@code keys} could
   * deadlock, so callers pass null unless they know every key.
   */
  public Transaction transaction(@Nullable List<byte[]> keys) {
    int[] order;
    if (keys == null) {
      order = java.util.stream.IntStream.range(0, STRIPES).toArray();
    } else {
      order = keys.stream().mapToInt(k -> stripeIndex(new Key(k))).sorted().distinct().toArray();
    }
    for (int i : order) {
      stripes[i].lock();
    }
    journal.beginCommand();
    return () -> {
      try {
        journal.endCommand();
      } finally {
        for (int i = order.length - 1; i >= 0; i--) {
          stripes[order[i]].unlock();
        }
      }
    };
  }

  /** An open transaction; closing it queues its changes and lets go of its locks. */
  public interface Transaction extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * What a WATCH saw of a key: its live value's id (0 if missing) and that value's version. Not the
   * value itself, which a session would keep on the heap after the key is deleted.
   */
  public record Watched(long id, long version) {}

  /** The key as WATCH sees it now. */
  public Watched watch(byte[] key) {
    return peek(key, e -> e == null ? new Watched(0, 0) : new Watched(e.id(), e.version));
  }

  /**
   * Whether the key changed since {@code seen}: written, expired, deleted, renamed away or over, or
   * created. A key created and deleted again in between is not seen (Redis would see it).
   */
  public boolean touchedSince(byte[] key, Watched seen) {
    return peek(
        key, e -> e == null ? seen.id() != 0 : e.id() != seen.id() || e.version != seen.version());
  }

  private final class Tx implements KeyTx {
    private final Key key;
    private @Nullable Entry entry;

    Tx(Key key) {
      this.key = key;
      this.entry = live(key);
    }

    @Override
    public Key key() {
      return key;
    }

    @Override
    public @Nullable Entry entry() {
      return entry;
    }

    @Override
    public <T> T create(ValueCodec<T> codec, T value, byte[] recipe) {
      if (entry != null) {
        throw new IllegalStateException("key is not free: " + key);
      }
      Entry e = new Entry(nextId.getAndIncrement(), key, codec, value);
      keys.put(key, e);
      listedAdd(e);
      if (codec.hasBackgroundWork()) {
        schedule(e, ValueCodec.NEXT_ROUND);
      }
      entry = e;
      journal.created(e, recipe);
      return value;
    }

    @Override
    public void visitBy(long atMillis) {
      if (entry == null) {
        throw new IllegalStateException("no entry to visit: " + key);
      }
      Visit v = entry.visit;
      if (v != null && visits.contains(v) && v.at() <= atMillis) {
        return;
      }
      unschedule(entry);
      schedule(entry, atMillis);
    }

    @Override
    public void log(byte op, byte[] payload, java.util.List<RowChange> rows) {
      if (entry == null) {
        throw new IllegalStateException("no entry to log for: " + key);
      }
      entry.version++;
      journal.mutated(entry, op, payload, rows);
    }

    @Override
    public void change(java.util.List<RowChange> rows) {
      if (entry == null) {
        throw new IllegalStateException("no entry to change rows of: " + key);
      }
      entry.version++;
      journal.rowsChanged(entry, rows);
    }

    @Override
    public void persist() {
      if (entry != null && entry.expireAtMillis() != Entry.PERSISTENT) {
        setExpiry(entry, Entry.PERSISTENT);
      }
    }

    @Override
    public void expireAt(long atMillis) {
      if (entry == null || atMillis <= now()) {
        throw new IllegalStateException("an expiry needs a live key and a time to come");
      }
      if (entry.expireAtMillis() != atMillis) {
        setExpiry(entry, atMillis);
      }
    }

    @Override
    public void delete() {
      if (entry != null) {
        removeLocked(entry);
        entry = null;
      }
    }

    void remeasure() {
      if (entry != null && keys.get(key) == entry) {
        long m = entry.measure();
        dataset.add(entry, m - entry.memory);
        entry.memory = m;
      }
    }
  }

  /** The live entry at k, removing it first if it expired. Caller holds k's lock. */
  private @Nullable Entry live(Key k) {
    Entry e = keys.get(k);
    if (e != null && e.expireAtMillis() != Entry.PERSISTENT && e.expireAtMillis() <= now()) {
      if (dueKeys != null && !FIXED_NOW.isBound()) {
        return null; // gone for this node's reads; only a record of the log deletes it
      }
      removeLocked(e);
      expiredKeys.increment();
      return null;
    }
    return e;
  }

  private void removeLocked(Entry e) {
    keys.remove(e.key(), e);
    listedRemove(e);
    unschedule(e);
    dataset.add(e, -e.memory);
    e.memory = 0;
    if (e.expireAtMillis() != Entry.PERSISTENT) {
      expiries.remove(new Expiry(e.expireAtMillis(), e.id(), e.key()));
    }
    journal.deleted(e);
  }

  // ---- generic commands

  /** Removes the keys that exist; returns how many did (DEL, UNLINK). */
  public long delete(List<byte[]> keyBytes) {
    long n = 0;
    for (byte[] kb : keyBytes) {
      n +=
          write(
              kb,
              tx -> {
                if (tx.entry() == null) {
                  return 0;
                }
                tx.delete();
                return 1;
              });
    }
    return n;
  }

  /** How many of the keys exist, counting repeats (EXISTS). */
  public long exists(List<byte[]> keyBytes) {
    long n = 0;
    for (byte[] kb : keyBytes) {
      n += read(kb, e -> e == null ? 0 : 1);
    }
    return n;
  }

  /** The TYPE reply: the codec's type name, or "none". */
  public String type(byte[] key) {
    return read(key, e -> e == null ? "none" : e.codec().typeName());
  }

  /** The outcome of a rename. */
  public enum RenameResult {
    RENAMED,
    NO_SUCH_KEY,
    /** RENAMENX: the target exists. */
    TARGET_EXISTS
  }

  /** Moves src's value to dst, overwriting dst unless {@code onlyIfAbsent} (RENAME, RENAMENX). */
  public RenameResult rename(byte[] src, byte[] dst, boolean onlyIfAbsent) {
    Key from = new Key(src);
    Key to = new Key(dst);
    ReentrantLock[] locks = lockBoth(from, to);
    try {
      Entry e = live(from);
      if (e == null) {
        return RenameResult.NO_SUCH_KEY;
      }
      if (from.equals(to)) {
        return onlyIfAbsent ? RenameResult.TARGET_EXISTS : RenameResult.RENAMED;
      }
      Entry old = live(to);
      if (old != null && onlyIfAbsent) {
        return RenameResult.TARGET_EXISTS;
      }
      if (old != null) {
        keys.remove(to, old);
        listedRemove(old);
        unschedule(old);
        dataset.add(old, -old.memory);
        old.memory = 0;
        if (old.expireAtMillis() != Entry.PERSISTENT) {
          expiries.remove(new Expiry(old.expireAtMillis(), old.id(), to));
        }
      }
      keys.remove(from, e);
      listedRemove(e);
      if (e.expireAtMillis() != Entry.PERSISTENT) {
        expiries.remove(new Expiry(e.expireAtMillis(), e.id(), from));
        expiries.add(new Expiry(e.expireAtMillis(), e.id(), to));
      }
      e.setKey(to);
      e.version++; // WATCH sees a key renamed away and back: it changed
      keys.put(to, e);
      listedAdd(e);
      dataset.add(e, to.bytes().length - from.bytes().length);
      e.memory += to.bytes().length - from.bytes().length;
      journal.renamed(from, e, old);
      return RenameResult.RENAMED;
    } finally {
      for (int i = locks.length - 1; i >= 0; i--) {
        locks[i].unlock();
      }
    }
  }

  /** EXPIRE's NX/XX/GT/LT conditions. */
  public enum ExpireCondition {
    ALWAYS,
    NX,
    XX,
    GT,
    LT
  }

  /**
   * Sets the key's expiry to an absolute time; a time not in the future deletes the key, as in
   * Redis. Returns false if the key is missing or the condition did not hold.
   */
  public boolean expireAt(byte[] key, long atMillis, ExpireCondition cond) {
    return write(
        key,
        tx -> {
          Entry e = tx.entry();
          if (e == null) {
            return false;
          }
          long cur = e.expireAtMillis();
          boolean persistent = cur == Entry.PERSISTENT;
          boolean ok =
              switch (cond) {
                case ALWAYS -> true;
                case NX -> persistent;
                case XX -> !persistent;
                // A key without expiry counts as an infinite TTL, as Redis defines GT and LT.
                case GT -> !persistent && atMillis > cur;
                case LT -> persistent || atMillis < cur;
              };
          if (!ok) {
            return false;
          }
          if (atMillis <= now()) {
            tx.delete();
            return true;
          }
          setExpiry(e, atMillis);
          return true;
        });
  }

  /** Removes the key's expiry; false if the key is missing or had none (PERSIST). */
  public boolean persist(byte[] key) {
    return write(
        key,
        tx -> {
          Entry e = tx.entry();
          if (e == null || e.expireAtMillis() == Entry.PERSISTENT) {
            return false;
          }
          setExpiry(e, Entry.PERSISTENT);
          return true;
        });
  }

  private void setExpiry(Entry e, long atMillis) {
    if (e.expireAtMillis() != Entry.PERSISTENT) {
      expiries.remove(new Expiry(e.expireAtMillis(), e.id(), e.key()));
    }
    e.setExpireAtMillis(atMillis);
    e.version++;
    if (atMillis != Entry.PERSISTENT) {
      expiries.add(new Expiry(atMillis, e.id(), e.key()));
    }
    journal.expiryChanged(e);
  }

  /** Milliseconds to live: -2 if the key is missing, -1 if it has no expiry (PTTL). */
  public long ttlMillis(byte[] key) {
    return read(
        key,
        e -> {
          if (e == null) {
            return -2L;
          }
          long at = e.expireAtMillis();
          return at == Entry.PERSISTENT ? -1L : Math.max(0, at - now());
        });
  }

  /** Absolute expiry in millis: -2 if missing, -1 if none (PEXPIRETIME). */
  public long expireTimeMillis(byte[] key) {
    return read(
        key,
        e -> {
          if (e == null) {
            return -2L;
          }
          long at = e.expireAtMillis();
          return at == Entry.PERSISTENT ? -1L : at;
        });
  }

  /**
   * Deletes keys whose time has come, at most {@code limit} of them, earliest first. It visits only
   * due expiries, never the keyspace. Returns how many it deleted.
   */
  public int expireDue(int limit) {
    long now = now();
    DueKeys sink = dueKeys;
    if (sink != null) {
      askLogToExpire(sink, now, limit);
      return 0;
    }
    int n = 0;
    while (n < limit) {
      Expiry x = expiries.isEmpty() ? null : expiries.first();
      if (x == null || x.atMillis() > now) {
        break;
      }
      Key k = x.key();
      ReentrantLock lock = lockOf(k);
      lock.lock();
      try {
        Entry e = keys.get(k);
        if (e != null && e.id() == x.id() && e.expireAtMillis() <= now) {
          removeLocked(e);
          expiredKeys.increment();
          n++;
        } else {
          expiries.remove(x); // stale: the key was renamed, deleted or re-expired
        }
      } finally {
        lock.unlock();
      }
    }
    return n;
  }

  /**
   * Hands up to {@code limit} due keys to the log's sink, earliest first, skipping those asked for
   * already; drops stale index entries on the way. Deletes nothing.
   */
  private void askLogToExpire(DueKeys sink, long now, int limit) {
    int asked = 0;
    int visited = 0;
    for (Expiry x : expiries) {
      if (x.atMillis() > now || asked >= limit || visited++ >= 10 * limit) {
        break;
      }
      Key k = x.key();
      ReentrantLock lock = lockOf(k);
      lock.lock();
      try {
        Entry e = keys.get(k);
        if (e == null || e.id() != x.id() || e.expireAtMillis() != x.atMillis()) {
          expiries.remove(x); // stale: the key was renamed, deleted or re-expired
          continue;
        }
      } finally {
        lock.unlock();
      }
      if (sink.due(k.bytes(), x.atMillis())) {
        asked++;
      }
    }
  }

  /**
   * EXPIREDUE: deletes the key if its time has come by now (a record's time, on a node with a log),
   * as a read by a client would. True if the key is absent afterwards.
   */
  public boolean expireIfDue(byte[] key) {
    return write(key, tx -> tx.entry() == null);
  }

  public long expiredKeys() {
    return expiredKeys.sum();
  }

  /** Keys with an expiry (INFO keyspace's expires). */
  public int keysWithExpiry() {
    return expiries.size();
  }

  /** Bytes of a digest (DEBUG DIGEST): SHA-1's, as Redis prints 40 hexadecimal digits. */
  public static final int DIGEST_BYTES = 20;

  /**
   * DEBUG DIGEST: one hash of every key, its type, its expiry and its value's content, the same on
   * any two nodes that hold the same data however they got there; all zeros for an empty keyspace.
   * The keys' digests are combined by XOR, so the order keys are visited in does not matter. O(keys
   * and their sizes), each key under its lock.
   */
  public byte[] digest() {
    byte[] all = new byte[DIGEST_BYTES];
    for (Key k : List.copyOf(keys.keySet())) {
      byte[] one = digestOf(k.bytes());
      for (int i = 0; i < DIGEST_BYTES; i++) {
        all[i] ^= one[i];
      }
    }
    return all;
  }

  /**
   * DEBUG DIGEST-VALUE: the digest of one key (its name, type, expiry and value's content); all
   * zeros if the key is missing. A key whose time ran out but that is not deleted yet (on a node
   * with a log) counts as it is held.
   */
  public byte[] digestOf(byte[] key) {
    Key k = new Key(key);
    ReentrantLock lock = lockOf(k);
    lock.lock();
    try {
      Entry e = keys.get(k);
      if (e == null) {
        return new byte[DIGEST_BYTES];
      }
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-1");
      md.update(java.nio.ByteBuffer.allocate(4).putInt(key.length).array());
      md.update(key);
      md.update(e.codec().typeName().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      md.update(java.nio.ByteBuffer.allocate(8).putLong(e.expireAtMillis()).array());
      @SuppressWarnings("unchecked")
      ValueCodec<Object> codec = (ValueCodec<Object>) e.codec();
      codec.writeDigest(
          e.value(),
          e.id(),
          rows(),
          new java.io.OutputStream() {
            @Override
            public void write(int b) {
              md.update((byte) b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
              md.update(b, off, len);
            }
          });
      return md.digest();
    } catch (java.security.NoSuchAlgorithmException | java.io.IOException ex) {
      throw new IllegalStateException("cannot digest " + k + ": " + ex.getMessage(), ex);
    } finally {
      lock.unlock();
    }
  }

  /** One page of SCAN: the keys visited and the cursor to continue from (0 when done). */
  public record ScanPage(long cursor, List<byte[]> keys) {}

  /**
   * Visits keys from the cursor (a position in hash order) until {@code count} are visited, then
   * finishes the hash it stopped in, so a key present for the whole scan is returned at least once.
   *
   * @param match a glob pattern, or null for every key
   * @param type a TYPE name to keep, or null for every type
   */
  public ScanPage scan(long cursor, int count, byte @Nullable [] match, @Nullable String type) {
    NavigableMap<Key, Entry> tail = keys.tailMap(Key.firstWithHash(cursor));
    List<byte[]> out = new ArrayList<>();
    long now = now();
    int visited = 0;
    long lastHash = 0;
    boolean stopped = false;
    for (Map.Entry<Key, Entry> me : tail.entrySet()) {
      Key k = me.getKey();
      if (visited >= count && k.hash() != lastHash) {
        stopped = true;
        lastHash = k.hash();
        break;
      }
      visited++;
      lastHash = k.hash();
      Entry e = me.getValue();
      if (e.expireAtMillis() <= now) {
        continue;
      }
      if (match != null && !Glob.matches(match, k.bytes())) {
        continue;
      }
      if (type != null && !e.codec().typeName().equalsIgnoreCase(type)) {
        continue;
      }
      out.add(k.bytes());
    }
    return new ScanPage(stopped ? lastHash : 0, out);
  }

  /** Every live key matching the pattern (KEYS): O(keys). */
  public List<byte[]> keys(byte[] pattern) {
    List<byte[]> out = new ArrayList<>();
    long now = now();
    for (Map.Entry<Key, Entry> me : keys.entrySet()) {
      if (me.getValue().expireAtMillis() > now && Glob.matches(pattern, me.getKey().bytes())) {
        out.add(me.getKey().bytes());
      }
    }
    return out;
  }

  /** Keys held, including expired ones not yet removed (DBSIZE, as Redis counts). */
  public long size() {
    return keys.size();
  }

  /** Removes every key (FLUSHDB, FLUSHALL). Takes every stripe, in order. */
  public void flush() {
    for (ReentrantLock l : stripes) {
      l.lock();
    }
    try {
      keys.clear();
      listed.clear();
      expiries.clear();
      visits.clear();
      dataset.clear();
      journal.flushed();
    } finally {
      for (int i = STRIPES - 1; i >= 0; i--) {
        stripes[i].unlock();
      }
    }
  }

  /** Bytes a key and its value hold, or -1 if missing (MEMORY USAGE). */
  public long memoryUsage(byte[] key) {
    return read(key, e -> e == null ? -1L : e.measure());
  }

  /**
   * Bytes the server holds for its data: the keys and their resident values, the changes not yet
   * written, and the snapshot images being written. What maxmemory limits.
   */
  public long usedMemory() {
    Journal j = journal;
    return dataset.total() + j.queuedBytes() + j.imageBytes();
  }

  /** Bytes the keys and their resident values take (INFO used_memory_dataset). */
  public long datasetMemory() {
    return dataset.total();
  }

  /**
   * Bytes the resident keys and values take by TYPE name, kept as they change (no walk): the
   * metrics' and the console's memory by type.
   */
  public java.util.Map<String, Long> memoryByType() {
    return dataset.byType();
  }

  public void setMaxMemory(long bytes) {
    this.maxMemory = bytes;
  }

  public long maxMemory() {
    return maxMemory;
  }

  /**
   * Whether the server may spend {@code bytes} more: within maxmemory when one is set, and within
   * the heap that is free: the heap less an eighth kept for everything that is not a value, less
   * what is live (the larger of the values counted and what the last collection kept). Without the
   * second test a large allocation passes whenever it fits an empty heap, and fails with an
   * OutOfMemoryError once the heap is busy.
   */
  public boolean memoryFits(long bytes) {
    if (FIXED_NOW.isBound()) {
      // Applying a record of the cluster's log: the node that took the write decided on memory
      // when it took it, and every node must apply it alike, whatever its own heap holds now.
      return true;
    }
    long max = maxMemory();
    return (max <= 0 || bytes <= max - usedMemory()) && bytes <= heapHeadroom();
  }

  /** Heap bytes one more allocation may take (see {@link #memoryFits}). */
  public long heapHeadroom() {
    long heap = Runtime.getRuntime().maxMemory();
    long live = Math.max(usedMemory(), liveAfterLastCollection());
    return heap - heap / 8 - live;
  }

  /**
   * Heap bytes the last collection of each pool left in use: live data then, and a lower bound.
   * Read from the pools after each collection, not on each write: a pool's collection usage is a
   * call into the JVM that builds a MemoryUsage object, and a write that may grow memory asks.
   */
  private static long liveAfterLastCollection() {
    return HeapAfterCollection.live();
  }

  /** Whether writes that may grow memory are refused now. */
  public boolean overMemoryLimit() {
    long max = maxMemory;
    return max > 0 && usedMemory() >= max;
  }

  // ---- for the store

  /** Puts a value loaded from disk, before the server accepts connections. */
  public Entry load(Key key, long id, ValueCodec<?> codec, Object value, long expireAtMillis) {
    Entry e = new Entry(id, key, codec, value);
    keys.put(key, e);
    listedAdd(e);
    if (expireAtMillis != Entry.PERSISTENT) {
      e.setExpireAtMillis(expireAtMillis);
      expiries.add(new Expiry(expireAtMillis, id, key));
    }
    e.memory = e.measure();
    dataset.add(e, e.memory);
    nextId.accumulateAndGet(id + 1, Math::max);
    if (codec.hasBackgroundWork()) {
      schedule(e, ValueCodec.NEXT_ROUND);
    }
    return e;
  }

  /**
   * Runs {@code f} with a write transaction on the entry's key if the entry is still live there,
   * else returns null: background work on a value that may have been renamed or deleted meanwhile.
   */
  public <R> @Nullable R writeEntry(Entry e, Function<KeyTx, R> f) {
    while (true) {
      Key k = e.key();
      ReentrantLock lock = lockOf(k);
      lock.lock();
      journal.beginCommand();
      Tx tx = null;
      try {
        if (e.key() != k) {
          continue;
        }
        tx = new Tx(k);
        if (tx.entry() != e) {
          return null;
        }
        return f.apply(tx);
      } finally {
        try {
          if (tx != null) {
            tx.remeasure();
          }
        } finally {
          journal.endCommand();
          lock.unlock();
        }
      }
    }
  }

  /**
   * Runs the background work of every live value that is due (see {@link ValueCodec#background})
   * once, and schedules each value's next visit as it answers. Called from one background thread.
   *
   * @return how many values it visited
   */
  @SuppressWarnings("unchecked")
  public int runBackground() {
    int visited = 0;
    long now = now();
    List<Visit> due = new ArrayList<>();
    for (Visit v : visits) {
      if (v.at() > now) {
        break;
      }
      due.add(v); // taken first: a value that asks for the next round is not visited twice
    }
    for (Visit v : due) {
      Entry e = v.entry();
      if (!visits.remove(v)) {
        continue; // deleted meanwhile
      }
      if (keys.get(e.key()) != e) {
        continue;
      }
      visited++;
      // A failure propagates to the caller, which logs it; the value is visited next round.
      long next = ValueCodec.NEXT_ROUND;
      try {
        next = ((ValueCodec<Object>) e.codec()).background(this, e);
      } finally {
        if (next != ValueCodec.NEVER) {
          long at = next;
          // Under the key's lock, as deletes unschedule: a value deleted meanwhile stays out.
          locked(
              e,
              en -> {
                Visit asked = en.visit;
                if (asked != null && asked != v && visits.contains(asked) && asked.at() <= at) {
                  return null; // a command asked for an earlier visit meanwhile (visitBy)
                }
                unschedule(en);
                schedule(en, at);
                return null;
              });
        }
      }
    }
    return visited;
  }

  private void schedule(Entry e, long at) {
    Visit v = new Visit(at, e.id(), e);
    e.visit = v;
    visits.add(v);
  }

  private void unschedule(Entry e) {
    Visit v = e.visit;
    if (v != null) {
      visits.remove(v);
      e.visit = null;
    }
  }

  /**
   * Runs {@code f} on the entry under its key's lock if it is still live (the snapshotter's view),
   * else returns null. The key may change under RENAME, so this retries until it holds the right
   * lock.
   */
  public <R> @Nullable R locked(Entry e, Function<Entry, R> f) {
    while (true) {
      Key k = e.key();
      ReentrantLock lock = lockOf(k);
      lock.lock();
      try {
        if (e.key() != k) {
          continue;
        }
        if (keys.get(k) != e) {
          return null;
        }
        return f.apply(e);
      } finally {
        lock.unlock();
      }
    }
  }

  private ReentrantLock lockOf(Key k) {
    return stripes[(int) (k.hash() >>> 52)];
  }

  private static int stripeIndex(Key k) {
    return (int) (k.hash() >>> 52);
  }

  private ReentrantLock[] lockBoth(Key a, Key b) {
    int ia = (int) (a.hash() >>> 52);
    int ib = (int) (b.hash() >>> 52);
    ReentrantLock[] locks =
        ia == ib
            ? new ReentrantLock[] {stripes[ia]}
            : new ReentrantLock[] {stripes[Math.min(ia, ib)], stripes[Math.max(ia, ib)]};
    Arrays.stream(locks).forEach(ReentrantLock::lock);
    return locks;
  }

  @Override
  public void close() {
    waits.close();
    journal.close();
  }
}
