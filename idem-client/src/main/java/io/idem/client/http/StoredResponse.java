package io.idem.client.http;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A response as an idempotency key stores it, to answer every retry with it byte for byte: the
 * status, the headers the policy lists, the body.
 *
 * <pre>
 * u8 1 | u16 status | u16 n | n x (u16 name length | name | u32 value length | value) | body
 * </pre>
 */
public record StoredResponse(int status, List<Map.Entry<String, String>> headers, byte[] body) {

  private static final int FORMAT = 1;

  public StoredResponse {
    headers = List.copyOf(headers);
  }

  public byte[] encode() {
    List<byte[]> parts = new ArrayList<>();
    int size = 1 + 2 + 2 + body.length;
    for (Map.Entry<String, String> h : headers) {
      byte[] name = h.getKey().getBytes(StandardCharsets.UTF_8);
      byte[] value = h.getValue().getBytes(StandardCharsets.UTF_8);
      parts.add(name);
      parts.add(value);
      size += 2 + name.length + 4 + value.length;
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.put((byte) FORMAT).putShort((short) status).putShort((short) headers.size());
    for (int i = 0; i < parts.size(); i += 2) {
      b.putShort((short) parts.get(i).length).put(parts.get(i));
      b.putInt(parts.get(i + 1).length).put(parts.get(i + 1));
    }
    b.put(body);
    return b.array();
  }

  /**
   * The response these bytes hold.
   *
   * @throws IllegalArgumentException if they are not one
   */
  public static StoredResponse decode(byte[] bytes) {
    try {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      if (b.get() != FORMAT) {
        throw new IllegalArgumentException("not a stored response (format " + bytes[0] + ")");
      }
      int status = b.getShort() & 0xffff;
      int n = b.getShort() & 0xffff;
      List<Map.Entry<String, String>> headers = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        byte[] name = new byte[b.getShort() & 0xffff];
        b.get(name);
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
          throw new IllegalArgumentException("a stored response's header runs past its end");
        }
        byte[] value = new byte[length];
        b.get(value);
        headers.add(
            Map.entry(
                new String(name, StandardCharsets.UTF_8),
                new String(value, StandardCharsets.UTF_8)));
      }
      byte[] body = new byte[b.remaining()];
      b.get(body);
      return new StoredResponse(status, headers, body);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("a stored response cut short", e);
    }
  }
}
