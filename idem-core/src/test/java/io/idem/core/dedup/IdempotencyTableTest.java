package io.idem.core.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.core.dedup.IdempotencyTable.Begun;
import io.idem.core.dedup.IdempotencyTable.Done;
import io.idem.core.dedup.IdempotencyTable.InProgress;
import io.idem.core.dedup.IdempotencyTable.Mismatch;
import io.idem.core.dedup.IdempotencyTable.Settings;
import io.idem.core.dedup.IdempotencyTable.Started;
import io.idem.core.filter.BloomFilter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The idempotency table against a naive model of its rules, with no server: begins, completions,
 * abandons and leases under a moved clock; then its recorded operations replayed on its recipe, and
 * its snapshot read back, must give the same table.
 */
class IdempotencyTableTest {

  private static final long T0 = 1_790_000_000_000L;
  private static final long HOUR = 3_600_000;
  private static final BloomFilter.Storage HEAP = BloomFilter.Storage.HEAP;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Settings settings(long retention) {
    return Settings.of(retention);
  }

  @Test
  void aKeyIsStartedOnce_thenInProgress_thenDoneWithItsResult() {
    MemoryClaimStore store = new MemoryClaimStore();
    IdempotencyTable t = IdempotencyTable.create(settings(24 * HOUR), T0, HEAP);
    Begun first = t.begin(store, b("k"), b("fp"), 30_000, T0);
    assertThat(first).isInstanceOf(Started.class);
    long token = ((Started) first).token();
    assertThat(t.begin(store, b("k"), b("fp"), 30_000, T0 + 1))
        .isEqualTo(new InProgress(T0 + 30_000));
    assertThat(t.begin(store, b("k"), b("other"), 30_000, T0 + 1)).isInstanceOf(Mismatch.class);
    assertThat(t.inProgressCount(T0 + 1)).isEqualTo(1);
    assertThat(t.complete(store, b("k"), token, b("the result"), T0 + 2)).isTrue();
    Begun again = t.begin(store, b("k"), b("fp"), 30_000, T0 + 3);
    assertThat(again).isInstanceOf(Done.class);
    assertThat(((Done) again).result()).isEqualTo(b("the result"));
    assertThat(t.begin(store, b("k"), b("other"), 30_000, T0 + 3)).isInstanceOf(Mismatch.class);
    assertThat(t.complete(store, b("k"), token, b("twice"), T0 + 4)).isFalse();
    assertThat(t.inProgressCount(T0 + 4)).isZero();
    assertThat(t.doneCount()).isEqualTo(1);
  }

  @Test
  void aLapsedLease_isTakenOver_andTheFirstTokenCanNoLongerComplete() {
    MemoryClaimStore store = new MemoryClaimStore();
    IdempotencyTable t = IdempotencyTable.create(settings(24 * HOUR), T0, HEAP);
    long first = ((Started) t.begin(store, b("k"), b("fp"), 1_000, T0)).token();
    assertThat(t.inProgress(b("k"), T0 + 999)).isNotNull();
    assertThat(t.inProgress(b("k"), T0 + 1_000)).as("lapsed: free").isNull();
    Begun taken = t.begin(store, b("k"), b("another fp"), 1_000, T0 + 1_000);
    assertThat(taken).isInstanceOf(Started.class);
    long second = ((Started) taken).token();
    assertThat(second).isGreaterThan(first);
    assertThat(t.complete(store, b("k"), first, b("late"), T0 + 1_001)).isFalse();
    assertThat(t.abandon(store, b("k"), first)).isFalse();
    assertThat(t.complete(store, b("k"), second, b("r"), T0 + 1_002)).isTrue();
  }

  @Test
  void aLapsedLeaseNobodyTookOver_stillCompletes_untilTheAdvanceDropsIt() {
    MemoryClaimStore store = new MemoryClaimStore();
    IdempotencyTable t = IdempotencyTable.create(settings(8 * HOUR), T0, HEAP); // 1 h slices
    long a = ((Started) t.begin(store, b("a"), b(""), 1_000, T0)).token();
    long c = ((Started) t.begin(store, b("c"), b(""), 1_000, T0)).token();
    assertThat(t.complete(store, b("a"), a, b("ok"), T0 + 5_000)).isTrue();
    // The next advance (here a slice leaving the retention) drops the lapsed lease too.
    long next = t.nextAdvanceMillis();
    assertThat(next).isBetween(T0 + 5_000, T0 + 1_000 + HOUR);
    assertThat(t.advanceDue(next - 1)).isFalse();
    assertThat(t.advance(store, next)).isTrue();
    assertThat(t.complete(store, b("c"), c, b("too late"), next)).isFalse();
    assertThat(t.begin(store, b("a"), b(""), 1_000, T0 + HOUR * 2)).isInstanceOf(Done.class);
  }

  @Test
  void anAbandonedKey_beginsAgain() {
    MemoryClaimStore store = new MemoryClaimStore();
    IdempotencyTable t = IdempotencyTable.create(settings(HOUR), T0, HEAP);
    long token = ((Started) t.begin(store, b("k"), b("fp"), 60_000, T0)).token();
    assertThat(t.abandon(store, b("k"), token + 1)).isFalse();
    assertThat(t.abandon(store, b("k"), token)).isTrue();
    assertThat(t.begin(store, b("k"), b("fp2"), 60_000, T0 + 1)).isInstanceOf(Started.class);
  }

  @Test
  void aDoneKey_isKeptTheRetention_andItsRowsGoWithItsSlice() {
    MemoryClaimStore store = new MemoryClaimStore();
    long retention = 8 * HOUR; // 8 slices of an hour
    IdempotencyTable t = IdempotencyTable.create(settings(retention), T0, HEAP);
    long token = ((Started) t.begin(store, b("k"), b(""), 1_000, T0)).token();
    t.complete(store, b("k"), token, b("r"), T0);
    assertThat(store.rows).hasSize(1);
    t.advance(store, T0 + retention - 1);
    assertThat(t.begin(store, b("k"), b(""), 1_000, T0 + retention - 1))
        .as("within the retention")
        .isInstanceOf(Done.class);
    long gone = T0 + retention + HOUR;
    assertThat(t.done(store, b("k"), gone)).as("past it and a slice").isNull();
    assertThat(t.advance(store, gone)).isTrue();
    assertThat(store.rows).isEmpty();
    assertThat(t.doneCount()).isZero();
    assertThat(t.begin(store, b("k"), b(""), 1_000, gone)).isInstanceOf(Started.class);
  }

  @Test
  void aFullTable_refusesANewKey_unlessALeaseLapsed_andChangesNothing() {
    MemoryClaimStore store = new MemoryClaimStore();
    Settings s = new Settings(HOUR, 8, 1000, 1024, 2, 30_000);
    IdempotencyTable t = IdempotencyTable.create(s, T0, HEAP);
    t.begin(store, b("a"), b(""), 1_000, T0);
    t.begin(store, b("b"), b(""), 5_000, T0);
    int ops = store.ops.size();
    assertThatThrownBy(() -> t.begin(store, b("c"), b(""), 1_000, T0 + 999))
        .isInstanceOf(IdempotencyTable.TooManyInProgressException.class)
        .hasMessage("too many keys in progress (MAXPENDING 2)");
    assertThat(store.ops).hasSize(ops);
    assertThat(t.inProgressCount(T0 + 999)).isEqualTo(2);
    assertThat(t.begin(store, b("c"), b(""), 1_000, T0 + 1_000)).isInstanceOf(Started.class);
    assertThat(t.inProgressCount(T0 + 1_000)).isEqualTo(2); // b and c; a lapsed and went
  }

  @Test
  void limits_areClearErrors() {
    MemoryClaimStore store = new MemoryClaimStore();
    Settings s = new Settings(HOUR, 8, 1000, 4, 10, 30_000);
    IdempotencyTable t = IdempotencyTable.create(s, T0, HEAP);
    long token = ((Started) t.begin(store, b("k"), b(""), 1_000, T0)).token();
    assertThatThrownBy(() -> t.complete(store, b("k"), token, b("12345"), T0))
        .hasMessage("the result is 5 bytes, over the table's MAXRESULT of 4");
    assertThatThrownBy(() -> t.begin(store, new byte[0], b(""), 1_000, T0))
        .hasMessage("an id is 1 to 1024 bytes");
    assertThatThrownBy(() -> t.begin(store, b("k"), new byte[65], 1_000, T0))
        .hasMessage("a fingerprint is at most 64 bytes");
    assertThat(new Settings(HOUR, 8, 1000, 0, 10, 1).problem())
        .isEqualTo("MAXRESULT must be from 1 to 1000000 bytes");
    assertThat(new Settings(HOUR, 8, 1000, 10, 10, HOUR + 1).problem())
        .isEqualTo("a LEASE is from 1 ms to the table's retention");
    assertThat(new Settings(10, 8, 1000, 10, 10, 1).problem()).startsWith("retention must be");
  }

  /** The naive model: every key's state, the done ones with their completion time. */
  private record Held(byte[] fp, long token, long leaseUntil) {}

  private record Stored(byte[] fp, byte[] result, long completed) {}

  @Test
  void randomCalls_agreeWithTheModel_andReplayAndSnapshotGiveTheSameTable() throws IOException {
    for (long seed = 1; seed <= 20; seed++) {
      runModel(seed);
    }
  }

  private static void runModel(long seed) throws IOException {
    Random r = new Random(seed);
    long retention = 4 * HOUR; // 8 slices of 30 min
    long slice = retention / 8;
    Settings s = new Settings(retention, 8, 200, 64, 40, 60_000);
    MemoryClaimStore store = new MemoryClaimStore();
    IdempotencyTable t = IdempotencyTable.create(s, T0, HEAP);
    Map<String, Held> held = new HashMap<>();
    Map<String, Stored> stored = new HashMap<>();
    Set<Long> tokens = new HashSet<>();
    long now = T0;
    byte[] snapshotMidway = null;
    int opsAtSnapshot = 0;
    for (int step = 0; step < 3000; step++) {
      now += r.nextInt(4) == 0 ? r.nextLong(slice) : r.nextLong(2_000);
      String id = "k" + r.nextInt(60);
      byte[] fp = b("fp" + r.nextInt(2));
      String what = "seed " + seed + " step " + step + " " + id;
      switch (r.nextInt(5)) {
        case 0, 1 -> {
          long lease = 1 + r.nextLong(120_000);
          Held h = held.get(id);
          Stored d = stored.get(id);
          boolean doneSurely = d != null && now - d.completed() < retention;
          boolean doneMaybe = d != null && now - d.completed() < retention + slice;
          Begun got;
          try {
            got = t.begin(store, b(id), fp, lease, now);
          } catch (IdempotencyTable.TooManyInProgressException e) {
            final long at = now;
            long live = held.values().stream().filter(x -> x.leaseUntil() > at).count();
            assertThat(live).as(what).isGreaterThanOrEqualTo(s.maxPending());
            continue;
          }
          if (h != null && h.leaseUntil() > now) {
            assertThat(got)
                .as(what)
                .isEqualTo(
                    Arrays.equals(h.fp(), fp) ? new InProgress(h.leaseUntil()) : new Mismatch());
          } else if (h == null && doneMaybe && !(got instanceof Started)) {
            if (Arrays.equals(d.fp(), fp)) {
              assertThat(got).as(what).isInstanceOf(Done.class);
              assertThat(((Done) got).result()).as(what).isEqualTo(d.result());
            } else {
              assertThat(got).as(what).isInstanceOf(Mismatch.class);
            }
          } else {
            assertThat(doneSurely && h == null).as(what + ": done, yet started").isFalse();
            assertThat(got).as(what).isInstanceOf(Started.class);
            Started st = (Started) got;
            assertThat(tokens.add(st.token())).as(what + ": a token twice").isTrue();
            assertThat(st.leaseUntil()).isEqualTo(now + lease);
            held.put(id, new Held(fp, st.token(), st.leaseUntil()));
            stored.remove(id);
          }
        }
        case 2 -> {
          Held h = held.get(id);
          boolean right = h != null && r.nextInt(8) != 0;
          long token = right ? h.token() : r.nextLong(1, Long.MAX_VALUE);
          byte[] result = b("result of " + id + " at " + now);
          boolean ok = t.complete(store, b(id), token, result, now);
          // A lapsed lease completes unless an advance dropped it; the model keeps lapsed ones.
          if (ok) {
            assertThat(right).as(what).isTrue();
            held.remove(id);
            stored.put(id, new Stored(h.fp(), result, now));
          } else {
            assertThat(right && h.leaseUntil() > now).as(what + ": a live lease refused").isFalse();
            if (right) {
              held.remove(id); // dropped by an advance
            }
          }
        }
        case 3 -> {
          Held h = held.get(id);
          if (h != null && t.abandon(store, b(id), h.token())) {
            held.remove(id);
          } else if (h != null) {
            assertThat(h.leaseUntil())
                .as(what + ": a live lease not abandoned")
                .isLessThanOrEqualTo(now);
            held.remove(id);
          }
        }
        default -> {
          final long at = now;
          if (t.advance(store, now)) {
            held.values().removeIf(h -> h.leaseUntil() <= at);
          }
          stored.values().removeIf(d -> at - d.completed() >= retention + slice);
        }
      }
      final long at = now;
      assertThat(t.inProgressCount(now))
          .as("seed %d step %d", seed, step)
          .isEqualTo(held.values().stream().filter(h -> h.leaseUntil() > at).count());
      if (step == 1500) {
        snapshotMidway = snapshot(t);
        opsAtSnapshot = store.ops.size();
      }
    }
    // The recorded operations on the recipe give the same table; so does the snapshot and the rest.
    IdempotencyTable replayed = IdempotencyTable.fromRecipe(t.recipe(), HEAP);
    for (MemoryClaimStore.Op op : store.ops) {
      replayed.replay(op.op(), op.payload());
    }
    assertThat(snapshot(replayed)).as("seed %d: replayed", seed).isEqualTo(snapshot(t));
    IdempotencyTable resumed =
        IdempotencyTable.readFrom(new ByteArrayInputStream(snapshotMidway), 1L << 30, HEAP);
    for (MemoryClaimStore.Op op : store.ops.subList(opsAtSnapshot, store.ops.size())) {
      resumed.replay(op.op(), op.payload());
    }
    assertThat(snapshot(resumed)).as("seed %d: from the snapshot", seed).isEqualTo(snapshot(t));
  }

  private static byte[] snapshot(IdempotencyTable t) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    t.writeTo(out);
    return out.toByteArray();
  }

  @Test
  void corruptSnapshotsAndOperations_areRefused() throws IOException {
    MemoryClaimStore store = new MemoryClaimStore();
    IdempotencyTable t = IdempotencyTable.create(settings(HOUR), T0, HEAP);
    t.begin(store, b("k"), b("fp"), 1_000, T0);
    long done = ((Started) t.begin(store, b("d"), b(""), 1_000, T0)).token();
    t.complete(store, b("d"), done, b("r"), T0);
    byte[] good = snapshot(t);
    for (int cut = 0; cut < good.length; cut += Math.max(1, good.length / 400)) {
      byte[] cutShort = Arrays.copyOf(good, cut);
      assertThatThrownBy(
              () -> IdempotencyTable.readFrom(new ByteArrayInputStream(cutShort), 1L << 30, HEAP))
          .isInstanceOf(IOException.class);
    }
    assertThatThrownBy(() -> IdempotencyTable.readFrom(new ByteArrayInputStream(good), 1000, HEAP))
        .as("more memory than allowed")
        .isInstanceOf(IOException.class);
    IdempotencyTable fresh = IdempotencyTable.fromRecipe(t.recipe(), HEAP);
    assertThatThrownBy(
            () -> fresh.replay(IdempotencyTable.COMPLETE, store.ops.getFirst().payload()))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> fresh.replay((byte) 9, new byte[0]))
        .hasMessage("unknown idempotency operation 9");
    assertThatThrownBy(() -> fresh.replay(IdempotencyTable.BEGIN, new byte[5]))
        .isInstanceOf(IOException.class);
  }
}
