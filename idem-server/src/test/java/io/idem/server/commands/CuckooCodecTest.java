package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.filter.CuckooFilter;
import io.idem.core.format.FormatFamily;
import io.idem.server.commands.cuckoo.CuckooCodec;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Journal;
import io.idem.server.engine.Key;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The durability contract of CF.* values: what is logged, and that replaying it rebuilds them. */
class CuckooCodecTest {

  private static final CuckooCodec CODEC = CuckooCodec.INSTANCE;

  private final Harness h = new Harness();
  private final Recording journal = new Recording();

  /** What the journal saw of one value: its recipe and its operations, in order. */
  record Logged(Entry entry, byte[] recipe, List<Op> ops) {

    /** The value rebuilt from its recipe and operations, as a restart without a snapshot would. */
    <T> T replay(io.idem.server.engine.ValueCodec<T> codec) throws IOException {
      T value = codec.create(recipe);
      for (Op op : ops) {
        codec.apply(value, op.op(), op.payload());
      }
      return value;
    }
  }

  /** A value's snapshot bytes, as the codec writes them. */
  static <T> byte[] written(io.idem.server.engine.ValueCodec<T> codec, T value) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    codec.write(value, out);
    return out.toByteArray();
  }

  record Op(byte op, byte[] payload) {}

  /** A journal that keeps every creation and operation, by value id, of values without rows. */
  static final class Recording implements Journal {
    final Map<Long, Logged> values = new HashMap<>();
    long seq;

    /** Rows by their scoped key, when the values recorded keep rows; else null: none allowed. */
    private final java.util.@Nullable TreeMap<byte[], byte[]> rows;

    Recording() {
      this(false);
    }

    /** A recording that keeps the values' rows in memory too (an idempotency table's, say). */
    Recording(boolean withRows) {
      rows = withRows ? new java.util.TreeMap<>(java.util.Arrays::compareUnsigned) : null;
    }

    private void apply(long valueId, List<io.idem.core.store.RowChange> changes) {
      if (changes.isEmpty()) {
        return;
      }
      if (rows == null) {
        throw new UnsupportedOperationException("no rows here");
      }
      for (io.idem.core.store.RowChange c : changes) {
        switch (c) {
          case io.idem.core.store.RowChange.Put p ->
              rows.put(io.idem.server.engine.Rows.scopedKey(valueId, p.key()), p.value());
          case io.idem.core.store.RowChange.Append a -> {
            byte[] k = io.idem.server.engine.Rows.scopedKey(valueId, a.key());
            rows.put(k, a.appliedTo(rows.get(k)));
          }
          case io.idem.core.store.RowChange.Delete d ->
              rows.remove(io.idem.server.engine.Rows.scopedKey(valueId, d.key()));
          case io.idem.core.store.RowChange.DeleteRange r ->
              rows.subMap(
                      io.idem.server.engine.Rows.scopedKey(valueId, r.from()),
                      io.idem.server.engine.Rows.scopedKey(valueId, r.to()))
                  .clear();
        }
      }
    }

    /** How many rows a value keeps (a recording with rows). */
    int rowCount(long valueId) {
      return rows.subMap(
              io.idem.server.engine.Rows.scopedKey(valueId, new byte[0]),
              io.idem.server.engine.Rows.scopedKey(valueId + 1, new byte[0]))
          .size();
    }

    Logged of(Harness h, String key) {
      return values.get(h.engine.read(bytes(key), e -> e.id()));
    }

    @Override
    public long lastSeq() {
      return seq;
    }

    @Override
    public long durableSeq() {
      return seq;
    }

    @Override
    public void created(Entry entry, byte[] recipe) {
      values.put(entry.id(), new Logged(entry, recipe.clone(), new ArrayList<>()));
      ++seq;
    }

    @Override
    public void mutated(
        Entry entry, byte op, byte[] payload, List<io.idem.core.store.RowChange> rows) {
      apply(entry.id(), rows);
      values.get(entry.id()).ops().add(new Op(op, payload.clone()));
      ++seq;
    }

    @Override
    public void rowsChanged(Entry entry, List<io.idem.core.store.RowChange> changes) {
      apply(entry.id(), changes);
    }

    /** Rows for values that keep none: handed out, but never to be used. */
    @Override
    public io.idem.server.engine.Rows rows() {
      return new io.idem.server.engine.Rows() {
        @Override
        public byte @Nullable [] get(long valueId, byte[] key) {
          if (rows == null) {
            throw new UnsupportedOperationException("no rows here");
          }
          return rows.get(io.idem.server.engine.Rows.scopedKey(valueId, key));
        }

        @Override
        public void scan(long valueId, java.util.function.BiConsumer<byte[], byte[]> visit) {
          throw new UnsupportedOperationException("no rows here");
        }

        @Override
        public long approximateBytes(long valueId) {
          return 0;
        }

        @Override
        public void writeNow(long valueId, List<io.idem.core.store.RowChange> changes) {
          throw new UnsupportedOperationException("no rows here");
        }

        @Override
        public void dropAll(long valueId) {
          throw new UnsupportedOperationException("no rows here");
        }
      };
    }

    @Override
    public void deleted(Entry entry) {
      ++seq;
    }

    @Override
    public void renamed(Key from, Entry entry, @Nullable Entry overwritten) {
      ++seq;
    }

    @Override
    public void expiryChanged(Entry entry) {
      ++seq;
    }

    @Override
    public void flushed() {
      ++seq;
    }

    @Override
    public void whenDurable(long s, Runnable action) {
      action.run();
    }

    @Override
    public void close() {}
  }

  @Test
  void replay_recipeAndLoggedOps_givesTheLiveFilters() throws IOException {
    h.engine.attach(journal);
    h.call("CF.RESERVE", "r", "200", "BUCKETSIZE", "3", "MAXITERATIONS", "7", "EXPANSION", "2");
    h.call(items("CF.INSERT", "r", 0, 900)); // grows, with kicks all the way
    h.call(items("CF.INSERTNX", "r", 850, 1000));
    h.call("CF.ADDNX", "r", "item-5000");
    h.call("CF.ADD", "r", "item-0");
    for (int i = 0; i < 900; i += 3) {
      h.call("CF.DEL", "r", "item-" + i); // passes a tenth of the items: compacts on the way
    }
    h.call("CF.COMPACT", "r");
    h.call("CF.ADD", "auto", "a"); // created by the add, with the defaults
    h.call("CF.RESERVE", "full", "4", "EXPANSION", "0");
    h.call(items("CF.INSERT", "full", 0, 30)); // some -1: not logged
    for (CuckooScanDumpTest.Chunk c : CuckooScanDumpTest.dump(h, "r")) {
      assertThat(CuckooScanDumpTest.load(h, "copy", c.iter(), c.data())).isEqualTo("OK");
    }
    for (String key : List.of("r", "auto", "full", "copy")) {
      Logged logged = journal.of(h, key);
      CuckooFilter replayed = CODEC.create(logged.recipe());
      for (Op op : logged.ops()) {
        CODEC.apply(replayed, op.op(), op.payload());
      }
      assertThat(snapshotOf(replayed)).as(key).isEqualTo(snapshotOf(filter(key)));
    }
    assertThat(ops(journal.of(h, "copy"))).containsOnly((int) opId("LOAD_CHUNK"));
  }

  @Test
  void replay_onASnapshotTakenMidStream_givesTheLiveFilter() throws IOException {
    h.engine.attach(journal);
    h.call("CF.RESERVE", "r", "100", "MAXITERATIONS", "9", "EXPANSION", "1");
    h.call(items("CF.INSERT", "r", 0, 150));
    ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
    CODEC.write(filter("r"), snapshot);
    int logged = journal.of(h, "r").ops().size();
    h.call(items("CF.INSERT", "r", 150, 600)); // kicks, growth
    for (int i = 0; i < 600; i += 4) {
      h.call("CF.DEL", "r", "item-" + i);
    }
    h.call(items("CF.INSERTNX", "r", 0, 700));
    h.call("CF.COMPACT", "r");
    byte[] s = snapshot.toByteArray();
    CuckooFilter replayed = CODEC.read(new ByteArrayInputStream(s), s.length);
    List<Op> ops = journal.of(h, "r").ops();
    for (Op op : ops.subList(logged, ops.size())) {
      CODEC.apply(replayed, op.op(), op.payload());
    }
    assertThat(filter("r").tableCount()).isGreaterThan(1);
    assertThat(snapshotOf(replayed)).isEqualTo(snapshotOf(filter("r")));
  }

  @Test
  void log_onlyChanges_itemHashesNeverItems() {
    h.engine.attach(journal);
    h.call("CF.RESERVE", "k", "100");
    h.call("CF.ADD", "k", "secret-item");
    h.call("CF.ADDNX", "k", "secret-item"); // present: nothing
    h.call("CF.INSERTNX", "k", "ITEMS", "secret-item", "b"); // one of two
    h.call("CF.DEL", "k", "absent"); // nothing stored: nothing
    h.call("CF.DEL", "k", "b");
    h.call("CF.COMPACT", "k"); // resets the delete count: a change
    h.call("CF.COMPACT", "k"); // nothing left to do
    h.call("CF.EXISTS", "k", "secret-item");
    h.call("CF.SCANDUMP", "k", "0");
    Logged logged = journal.of(h, "k");
    assertThat(ops(logged))
        .containsExactly(
            (int) opId("ADD"), (int) opId("ADD_NX"), (int) opId("DEL"), (int) opId("COMPACT"));
    assertThat(logged.ops().get(0).payload()).hasSize(16);
    assertThat(logged.ops().get(1).payload()).hasSize(16);
    assertThat(logged.ops().get(3).payload()).isEmpty();
    for (Op op : logged.ops()) {
      assertThat(new String(op.payload(), java.nio.charset.StandardCharsets.ISO_8859_1))
          .doesNotContain("secret");
    }
    assertThat(logged.recipe()).hasSize(49); // the SCANDUMP header
  }

  @Test
  void log_failedInserts_notLogged() {
    h.engine.attach(journal);
    h.call("CF.RESERVE", "k", "4", "EXPANSION", "0");
    h.call(items("CF.INSERT", "k", 0, 40));
    int added = (int) filter("k").itemCount();
    Logged logged = journal.of(h, "k");
    assertThat(logged.ops()).hasSize(1);
    assertThat(logged.ops().getFirst().payload()).hasSize(16 * added);
    int more = 0;
    String reply;
    while ((reply = h.show("CF.ADD", "k", "more-" + more)).equals("(integer) 1")) {
      more++;
    }
    assertThat(reply).isEqualTo("(error) Filter is full");
    assertThat(logged.ops()).hasSize(1 + more);
  }

  @Test
  void apply_badOperations_ioException() throws IOException {
    h.call("CF.RESERVE", "k", "100");
    CuckooFilter f = filter("k");
    assertThatThrownBy(() -> CODEC.apply(f, (byte) 99, new byte[0]))
        .isInstanceOf(IOException.class)
        .hasMessage("unknown cuckoo operation 99");
    assertThatThrownBy(() -> CODEC.apply(f, opId("ADD"), new byte[15]))
        .isInstanceOf(IOException.class)
        .hasMessage("ADD payload of 15 bytes is not (h1, h2) pairs");
    assertThatThrownBy(() -> CODEC.apply(f, opId("DEL"), new byte[16]))
        .isInstanceOf(IOException.class)
        .hasMessage("replayed DEL found nothing to delete");
    assertThatThrownBy(() -> CODEC.apply(f, opId("DEL"), new byte[32]))
        .hasMessage("DEL payload of 32 bytes is not one pair");
    assertThatThrownBy(() -> CODEC.apply(f, opId("LOAD_CHUNK"), new byte[7]))
        .hasMessage("LOAD_CHUNK payload of 7 bytes has no iterator");
    byte[] pair = ByteBuffer.allocate(16).putLong(1).putLong(2).array();
    CODEC.apply(f, opId("ADD_NX"), pair);
    assertThatThrownBy(() -> CODEC.apply(f, opId("ADD_NX"), pair))
        .hasMessage("replayed ADD_NX found its item present");
    assertThatThrownBy(() -> CODEC.create(new byte[49]))
        .isInstanceOf(IOException.class)
        .hasMessage("not a header of CF.SCANDUMP");
  }

  @Test
  void read_overTheLimit_ioException() throws IOException {
    h.call("CF.RESERVE", "k", "100");
    byte[] s = snapshotOf(filter("k"));
    assertThatThrownBy(() -> CODEC.read(new ByteArrayInputStream(s), s.length - 1))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("over the limit");
  }

  @Test
  void identity_typeIdIsTheCuckooFamily_typeNameIsRedisBlooms_memoryIsInfoSize() {
    assertThat(CODEC.typeId()).isEqualTo((byte) FormatFamily.CUCKOO.id());
    assertThat(CODEC.typeName()).isEqualTo("MBbloomCF");
    assertThat(CODEC.valueClass()).isEqualTo(CuckooFilter.class);
    h.call("CF.RESERVE", "k", "1000");
    assertThat(CODEC.memoryUsage(filter("k"))).isEqualTo(2152);
    assertThat(h.show("CF.INFO", "k")).startsWith("{Size=(integer) 2152,");
  }

  // ---- helpers

  private CuckooFilter filter(String key) {
    return CuckooScanDumpTest.filter(h, key);
  }

  private static byte[] snapshotOf(CuckooFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CODEC.write(f, out);
    return out.toByteArray();
  }

  private static String[] items(String name, String key, int from, int to) {
    List<String> w = new ArrayList<>(List.of(name, key, "ITEMS"));
    for (int i = from; i < to; i++) {
      w.add("item-" + i);
    }
    return w.toArray(String[]::new);
  }

  private static List<Integer> ops(Logged logged) {
    return logged.ops().stream().map(o -> (int) o.op()).toList();
  }

  /** The op ids of CuckooCodec's table: append-only, so pinned here by their numbers. */
  private static byte opId(String name) {
    return switch (name) {
      case "ADD" -> 1;
      case "ADD_NX" -> 2;
      case "DEL" -> 3;
      case "COMPACT" -> 4;
      case "LOAD_CHUNK" -> 5;
      default -> throw new IllegalArgumentException(name);
    };
  }
}
