package io.idem.server.commands;

import static io.idem.server.commands.Harness.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.format.FormatFamily;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.engine.Entry;
import io.idem.server.engine.Journal;
import io.idem.server.reply.Reply;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BloomCodecTest {

  private final Harness h = new Harness();

  {
    h.config.set("bf-layout", "blocked"); // Idem's own layout; the classic one is tested apart
  }

  private final Map<Long, Logged> log = new LinkedHashMap<>();

  /** What the journal saw of one value: its recipe and its operations, in order. */
  record Logged(Entry entry, byte[] recipe, List<Op> ops) {}

  record Op(byte op, byte[] payload) {}

  /**
   * A journal that records creations and operations and otherwise behaves as {@link
   * Journal#none()}. A proxy, so it keeps compiling as the interface grows.
   */
  private Journal recording() {
    Journal none = Journal.none();
    return (Journal)
        Proxy.newProxyInstance(
            Journal.class.getClassLoader(),
            new Class<?>[] {Journal.class},
            (proxy, method, args) -> {
              switch (method.getName()) {
                case "created" -> {
                  Entry e = (Entry) args[0];
                  log.put(e.id(), new Logged(e, ((byte[]) args[1]).clone(), new ArrayList<>()));
                }
                case "mutated" -> {
                  Entry e = (Entry) args[0];
                  log.get(e.id()).ops().add(new Op((byte) args[1], ((byte[]) args[2]).clone()));
                }
                default -> {}
              }
              try {
                return method.invoke(none, args);
              } catch (InvocationTargetException ex) {
                throw ex.getCause();
              }
            });
  }

  @Test
  void replay_recipeAndLoggedOps_givesTheLiveFilters() throws IOException {
    h.engine.attach(recording());
    h.call("BF.RESERVE", "reserved", "0.001", "50", "EXPANSION", "3");
    h.call("BF.ADD", "added", "x");
    h.call("BF.ADD", "added", "x"); // present: not logged
    h.call("BF.INSERT", "inserted", "CAPACITY", "20", "ERROR", "0.05", "ITEMS", "a", "b");
    h.call("BF.RESERVE", "full", "0.01", "10", "NONSCALING");
    List<String> words = new ArrayList<>(List.of("BF.MADD", "reserved"));
    List<String> full = new ArrayList<>(List.of("BF.MADD", "full"));
    for (int i = 0; i < 2000; i++) {
      words.add("item-" + i);
      full.add("item-" + i);
    }
    h.call(words.toArray(String[]::new)); // grows several layers
    h.call(full.toArray(String[]::new)); // stops at the error, logs what it added
    // A copy made by SCANDUMP and LOADCHUNK: a header recipe, then LOAD_CHUNK operations.
    long iter = 0;
    while (true) {
      Reply.Array r = (Reply.Array) h.call("BF.SCANDUMP", "reserved", Long.toString(iter));
      iter = ((Reply.Int) r.items().get(0)).value();
      if (iter == 0) {
        break;
      }
      byte[] data = ((Reply.Bulk) r.items().get(1)).bytes();
      h.call(bytes("BF.LOADCHUNK"), bytes("loaded"), bytes(Long.toString(iter)), data);
    }
    h.call("BF.MADD", "loaded", "after-1", "after-2");

    assertThat(log).hasSize(5);
    for (Logged l : log.values()) {
      ScalableBloomFilter replayed = BloomCodec.INSTANCE.create(l.recipe());
      for (Op op : l.ops()) {
        BloomCodec.INSTANCE.apply(replayed, op.op(), op.payload());
      }
      ScalableBloomFilter live = (ScalableBloomFilter) l.entry().value();
      assertThat(serialized(replayed)).as(l.entry().key().toString()).isEqualTo(serialized(live));
    }
    Logged added = byKey("added");
    assertThat(added.ops()).hasSize(1);
    assertThat(added.ops().getFirst().op()).isEqualTo((byte) 1);
    assertThat(added.ops().getFirst().payload()).hasSize(16); // h1 and h2, never the item
    assertThat(byKey("loaded").ops().getFirst().op()).isEqualTo((byte) 2);
  }

  @Test
  void replay_onASnapshot_givesTheLiveFilter() throws IOException {
    h.engine.attach(recording());
    h.call("BF.MADD", "k", "a", "b");
    ScalableBloomFilter live = h.engine.read(bytes("k"), e -> e.valueAs(BloomCodec.INSTANCE));
    ByteArrayOutputStream snapshot = new ByteArrayOutputStream();
    BloomCodec.INSTANCE.write(live, snapshot);
    int logged = byKey("k").ops().size();
    h.call("BF.MADD", "k", "c", "d", "a");
    ScalableBloomFilter restored =
        BloomCodec.INSTANCE.read(new ByteArrayInputStream(snapshot.toByteArray()), 1 << 20);
    List<Op> ops = byKey("k").ops();
    for (Op op : ops.subList(logged, ops.size())) {
      BloomCodec.INSTANCE.apply(restored, op.op(), op.payload());
    }
    assertThat(serialized(restored)).isEqualTo(serialized(live));
  }

  @Test
  void apply_badPayload_throwsIOException() throws IOException {
    h.call("BF.ADD", "k", "a");
    ScalableBloomFilter f = h.engine.read(bytes("k"), e -> e.valueAs(BloomCodec.INSTANCE));
    assertThatThrownBy(() -> BloomCodec.INSTANCE.apply(f, (byte) 1, new byte[15]))
        .isInstanceOf(IOException.class)
        .hasMessage("ADD payload of 15 bytes is not (h1, h2) pairs");
    assertThatThrownBy(() -> BloomCodec.INSTANCE.apply(f, (byte) 1, new byte[0]))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> BloomCodec.INSTANCE.apply(f, (byte) 2, new byte[3]))
        .isInstanceOf(IOException.class)
        .hasMessage("LOAD_CHUNK payload of 3 bytes has no iterator");
    assertThatThrownBy(() -> BloomCodec.INSTANCE.apply(f, (byte) 2, new byte[8 + 196]))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> BloomCodec.INSTANCE.apply(f, (byte) 9, new byte[16]))
        .isInstanceOf(IOException.class)
        .hasMessage("unknown Bloom operation 9");
    assertThatThrownBy(() -> BloomCodec.INSTANCE.create(new byte[] {1, 2, 3}))
        .isInstanceOf(IOException.class);
  }

  @Test
  void identity_typeNameIdAndMemory() {
    assertThat(BloomCodec.INSTANCE.typeName()).isEqualTo("MBbloom--");
    assertThat(BloomCodec.INSTANCE.typeId()).isEqualTo((byte) FormatFamily.SCALABLE_BLOOM.id());
    assertThat(BloomCodec.INSTANCE.valueClass()).isEqualTo(ScalableBloomFilter.class);
    ScalableBloomFilter f = ScalableBloomFilter.create();
    assertThat(BloomCodec.INSTANCE.memoryUsage(f))
        .isBetween(f.sizeInBytes(), f.sizeInBytes() + 256);
    h.call("BF.ADD", "k", "a");
    assertThat(h.engine.memoryUsage(bytes("k"))).isGreaterThan(192);
  }

  private Logged byKey(String key) {
    return log.values().stream()
        .filter(l -> l.entry().key().toString().equals(key))
        .findFirst()
        .orElseThrow();
  }

  private static byte[] serialized(ScalableBloomFilter f) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    f.writeTo(out);
    return out.toByteArray();
  }
}
