package io.idem.server.store;

import io.idem.server.engine.ValueCodec;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The value types the store can load, by their on-disk type byte. */
public final class Codecs {

  private final @Nullable ValueCodec<?>[] byId = new ValueCodec<?>[256];

  public Codecs(List<ValueCodec<?>> codecs) {
    for (ValueCodec<?> c : codecs) {
      int id = c.typeId() & 0xff;
      if (byId[id] != null) {
        throw new IllegalArgumentException("two codecs with type id " + id);
      }
      byId[id] = c;
    }
  }

  public @Nullable ValueCodec<?> byId(byte typeId) {
    return byId[typeId & 0xff];
  }
}
