package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JsonWriterTest {

  @Test
  void toString_nestedObjectsAndArrays_separatedByCommas() {
    String json =
        new JsonWriter()
            .beginObject()
            .field("a", 1)
            .key("b")
            .beginArray()
            .beginObject()
            .field("c", 0.5)
            .endObject()
            .beginObject()
            .endObject()
            .endArray()
            .key("empty")
            .beginArray()
            .endArray()
            .field("d", 1e-4)
            .endObject()
            .toString();

    assertThat(json).isEqualTo("{\"a\":1,\"b\":[{\"c\":0.5},{}],\"empty\":[],\"d\":1.0E-4}");
    assertThat(MiniJson.parse(json)).isNotNull();
  }

  @Test
  void key_needingEscapes_throws() {
    assertThatThrownBy(() -> new JsonWriter().beginObject().key("a\"b"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void value_notFinite_throws() {
    assertThatThrownBy(() -> new JsonWriter().value(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
