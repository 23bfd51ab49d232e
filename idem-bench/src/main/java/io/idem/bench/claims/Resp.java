package io.idem.bench.claims;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/** A RESP2 reply as {@link RespReader} parses it. */
public sealed interface Resp {
  /** The nil bulk string ({@code $-1}) and the nil array ({@code *-1}), which RESP2 both use. */
  Resp NIL = new Nil();

  /** {@code +text}. */
  record Simple(String text) implements Resp {}

  /** {@code -message}: the server refused the command. */
  record Err(String message) implements Resp {}

  /** {@code :value}. */
  record Int(long value) implements Resp {}

  /** {@code $n} followed by n bytes. */
  record Bulk(byte[] bytes) implements Resp {
    @Override
    public boolean equals(Object o) {
      return o instanceof Bulk b && Arrays.equals(bytes, b.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "Bulk[" + new String(bytes, StandardCharsets.ISO_8859_1) + "]";
    }
  }

  /** {@code *n} followed by n replies. */
  record Array(List<Resp> elements) implements Resp {}

  /** See {@link #NIL}. */
  record Nil() implements Resp {}

  /** A short description for error messages: the error text, or the kind and size of the reply. */
  static String describe(Resp reply) {
    return switch (reply) {
      case Simple s -> "+" + s.text();
      case Err e -> "-" + e.message();
      case Int i -> ":" + i.value();
      case Bulk b -> "a bulk string of " + b.bytes().length + " bytes";
      case Array a -> "an array of " + a.elements().size();
      case Nil n -> "nil";
    };
  }
}
