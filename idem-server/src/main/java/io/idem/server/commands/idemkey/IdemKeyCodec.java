package io.idem.server.commands.idemkey;

import io.idem.core.dedup.IdempotencyTable;
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

/**
 * How the engine keeps idempotency-key tables durable: core's {@link IdempotencyTable} for the
 * recipe, the snapshot (slice filters, keys in progress) and the operations in the log. A done key
 * is a row, written in the same batch as the COMPLETE that made it, so replay touches memory only.
 */
public final class IdemKeyCodec implements ValueCodec<IdempotencyTable> {

  public static final IdemKeyCodec INSTANCE = new IdemKeyCodec();

  static final byte TYPE_ID = 20;

  private IdemKeyCodec() {}

  @Override
  public byte typeId() {
    return TYPE_ID;
  }

  @Override
  public String typeName() {
    return "idemkey";
  }

  @Override
  public Class<IdempotencyTable> valueClass() {
    return IdempotencyTable.class;
  }

  @Override
  public boolean hasRows() {
    return true;
  }

  @Override
  public IdempotencyTable create(byte[] recipe) throws IOException {
    return IdempotencyTable.fromRecipe(recipe, BloomCodec.STORAGE);
  }

  @Override
  public void apply(IdempotencyTable t, byte op, byte[] payload) throws IOException {
    t.replay(op, payload);
  }

  @Override
  public void write(IdempotencyTable t, OutputStream os) throws IOException {
    t.writeTo(os);
  }

  /**
   * The snapshot, then every done row in key order: the same on every node that applied the same.
   */
  @Override
  public void writeDigest(IdempotencyTable t, long valueId, Rows rows, OutputStream os)
      throws IOException {
    t.writeTo(os);
    rows.writeAll(valueId, new DataOutputStream(os));
  }

  @Override
  public IdempotencyTable read(InputStream is, long maxBytes) throws IOException {
    return IdempotencyTable.readFrom(is, maxBytes, BloomCodec.STORAGE);
  }

  @Override
  public boolean moveWindow(KeyTx tx, IdempotencyTable t, long now) {
    return t.advance(IdemKeys.logOnly(tx), now);
  }

  @Override
  public boolean hasBackgroundWork() {
    return true;
  }

  /**
   * Drops the slices past the retention and the leases that ran out a slice ago; on a node with a
   * log, asks for a WINDOWDUE record instead, so that every node drops them at the record's time.
   */
  @Override
  public long background(Engine engine, Entry entry) {
    IdempotencyTable t = (IdempotencyTable) entry.value();
    boolean[] due = {false};
    Long next =
        engine.writeEntry(
            entry,
            tx -> {
              long now = engine.now();
              if (!engine.expiresByLog()) {
                t.advance(IdemKeys.logOnly(tx), now);
              } else {
                due[0] = t.advanceDue(now);
              }
              return t.nextAdvanceMillis();
            });
    if (next == null) {
      return NEVER;
    }
    if (due[0]) {
      engine.windowByLog(entry);
      return NEXT_ROUND;
    }
    return next;
  }

  @Override
  public long memoryUsage(IdempotencyTable t) {
    return t.memoryBytes();
  }
}
