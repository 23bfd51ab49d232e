package io.idem.server.commands.dedup;

import io.idem.core.dedup.DedupOps;
import io.idem.core.dedup.DedupSnapshot;
import io.idem.core.dedup.DedupTable;
import io.idem.core.dedup.ExactTable;
import io.idem.core.store.RowChange;
import io.idem.server.commands.bloom.BloomCodec;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Entry;
import io.idem.server.engine.KeyTx;
import io.idem.server.engine.Rows;
import io.idem.server.engine.ValueCodec;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How the engine keeps dedup tables durable: core's {@link DedupSnapshot} for the recipe and the
 * snapshot, {@link DedupOps} for the operations in the log. The resident part (slice filters,
 * recent slots, counts) is snapshotted and logged. An exact table's claims are logged whole, so the
 * reply waits for one log record per command, and kept pending in memory; the background writes
 * them as rows (see {@link ExactTable}) and drops them from memory. Until then they are in every
 * snapshot, and replay makes logged ones pending again: writing a row twice is harmless.
 */
public final class DedupCodec implements ValueCodec<DedupTable> {

  public static final DedupCodec INSTANCE = new DedupCodec();

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DedupCodec.class);

  static final byte TYPE_ID = 16;

  private DedupCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  @Override
  public String typeName() {
    return "dedup";
  }

  @Override
  public Class<DedupTable> valueClass() {
    return DedupTable.class;
  }

  @Override
  public boolean hasRows() {
    return true;
  }

  @Override
  public DedupTable create(byte[] recipe) throws IOException {
    return DedupSnapshot.fromRecipe(recipe, BloomCodec.STORAGE);
  }

  @Override
  public void apply(DedupTable t, byte op, byte[] payload) throws IOException {
    DedupOps.replay(t, op, payload);
  }

  @Override
  public void write(DedupTable t, OutputStream os) throws IOException {
    DedupSnapshot.write(t, os, true);
  }

  /**
   * The snapshot without the claims not yet written as rows, then, for an exact table, every live
   * slice's holders, id by id in order, from rows and pending claims alike: when a node writes its
   * claims as rows is its own affair, so two nodes holding the same claims may hold them pending or
   * written, in rows packed differently.
   */
  @Override
  public void writeDigest(DedupTable t, long valueId, Rows rows, OutputStream os)
      throws IOException {
    DedupSnapshot.write(t, os, false);
    if (!(t instanceof ExactTable exact)) {
      return;
    }
    DataOutputStream out = new DataOutputStream(os);
    for (Map.Entry<Long, TreeMap<byte[], byte[]>> slice :
        exact.holders(visit -> rows.scan(valueId, visit::accept)).entrySet()) {
      out.writeLong(slice.getKey());
      out.writeInt(slice.getValue().size());
      for (Map.Entry<byte[], byte[]> claim : slice.getValue().entrySet()) {
        out.writeShort(claim.getKey().length);
        out.write(claim.getKey());
        out.writeByte(claim.getValue().length);
        out.write(claim.getValue());
      }
    }
    out.flush();
  }

  @Override
  public DedupTable read(InputStream is, long maxBytes) throws IOException {
    return DedupSnapshot.read(is, maxBytes, BloomCodec.STORAGE);
  }

  @Override
  public boolean moveWindow(KeyTx tx, DedupTable t, long now) {
    if (!t.advanceDue(now)) {
      return false;
    }
    t.advance(Dedups.logOnly(tx), now);
    return true;
  }

  @Override
  public boolean hasBackgroundWork() {
    return true;
  }

  /**
   * Drops slices that left the window (also for a table nobody claims into) and writes pending
   * claims as rows: take them under the lock, write them without it, then under the lock again log
   * the release records that undo what the write raced with.
   */
  @Override
  @SuppressWarnings("unchecked")
  public long background(Engine engine, Entry entry) {
    DedupTable t = (DedupTable) entry.value();
    Object[] rows = {null};
    boolean[] due = {false};
    Boolean live =
        engine.writeEntry(
            entry,
            tx -> {
              long now = engine.now();
              if (!engine.expiresByLog()) {
                t.advance(Dedups.logOnly(tx), now);
              } else {
                due[0] = t.advanceDue(now);
              }
              rows[0] = t instanceof ExactTable e ? e.startFlush(now, false) : null;
              return Boolean.TRUE;
            });
    if (live == null) {
      return NEVER;
    }
    if (due[0]) {
      // On a node with a log the window moves at a record's time (WINDOWDUE): moved by this
      // node's clock, a replica catching up would drop slices the log still holds.
      engine.windowByLog(entry);
    }
    List<RowChange> appends = (List<RowChange>) rows[0];
    if (appends == null) {
      return NEXT_ROUND;
    }
    ExactTable exact = (ExactTable) t;
    try {
      long t0 = System.nanoTime();
      engine.rows().writeNow(entry.id(), appends);
      log.debug(
          "wrote pending claims to {} rows in {} ms",
          appends.size(),
          (System.nanoTime() - t0) / 1_000_000);
    } catch (RuntimeException e) {
      engine.writeEntry(
          entry,
          tx -> {
            exact.abortFlush();
            return Boolean.TRUE;
          });
      throw e;
    }
    return finishWrite(engine, entry, exact) ? NEXT_ROUND : NEVER;
  }

  /**
   * The background write's last step, once its rows are in the store: logs what undoes its races,
   * or drops the rows again if the table was deleted meanwhile. Whether the table is still live.
   */
  static boolean finishWrite(Engine engine, Entry entry, ExactTable t) {
    Boolean still =
        engine.writeEntry(
            entry,
            tx -> {
              List<RowChange> fix = t.finishFlush();
              if (!fix.isEmpty()) {
                tx.log(DedupOps.ROWS, new byte[0], fix);
              }
              return Boolean.TRUE;
            });
    if (still == null) {
      engine.rows().dropAll(entry.id()); // deleted while we wrote: its rows go again
      return false;
    }
    return true;
  }

  @Override
  public long memoryUsage(DedupTable t) {
    return t.memoryBytes();
  }
}
