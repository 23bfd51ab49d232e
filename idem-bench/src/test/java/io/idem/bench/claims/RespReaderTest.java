package io.idem.bench.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RespReaderTest {
  private static final byte[] MIXED =
      ("+OK\r\n-ERR unknown command 'X'\r\n:-42\r\n$3\r\nab\n\r\n$-1\r\n*-1\r\n*0\r\n"
              + "*2\r\n*2\r\n$2\r\nid\r\n$0\r\n\r\n:7\r\n")
          .getBytes(StandardCharsets.ISO_8859_1);

  private static final List<Resp> MIXED_REPLIES =
      List.of(
          new Resp.Simple("OK"),
          new Resp.Err("ERR unknown command 'X'"),
          new Resp.Int(-42),
          bulk("ab\n"),
          Resp.NIL,
          Resp.NIL,
          new Resp.Array(List.of()),
          new Resp.Array(List.of(new Resp.Array(List.of(bulk("id"), bulk(""))), new Resp.Int(7))));

  @Test
  void read_everyType_parsesInOrder() throws IOException {
    RespReader reader = new RespReader(new ByteArrayInputStream(MIXED));
    for (Resp expected : MIXED_REPLIES) {
      assertThat(reader.read()).isEqualTo(expected);
    }
    assertThatThrownBy(reader::read)
        .isInstanceOf(EOFException.class)
        .hasMessage("the server closed the connection before a reply");
  }

  @Test
  void read_oneByteAtATimeAndTinyBuffer_sameReplies() throws IOException {
    InputStream trickle =
        new ByteArrayInputStream(MIXED) {
          @Override
          public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, 1));
          }
        };
    RespReader reader = new RespReader(trickle, 1, 1 << 10, 1 << 10, 8, 1 << 10);
    for (Resp expected : MIXED_REPLIES) {
      assertThat(reader.read()).isEqualTo(expected);
    }
  }

  @Test
  void read_writerOutput_roundTrips() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    RespWriter writer = new RespWriter(bytes, 64);
    writer.array(5).bulk("EVALSHA").bulkDecimal(Long.MIN_VALUE).bulkDecimal(0);
    writer.bulk16(0x0102030405060708L, 0x090a0b0c0d0e0f10L).bulk8(-1L);
    writer.flush();
    RespReader reader = new RespReader(new ByteArrayInputStream(bytes.toByteArray()));
    assertThat(reader.read())
        .isEqualTo(
            new Resp.Array(
                List.of(
                    bulk("EVALSHA"),
                    bulk("-9223372036854775808"),
                    bulk("0"),
                    new Resp.Bulk(
                        new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}),
                    new Resp.Bulk(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1}))));
  }

  @Test
  void read_badInput_clearErrors() {
    assertError("%1\r\n", "unexpected reply type byte 0x25 ('%')");
    assertError(":12a\r\n", "expected a digit in an integer, got 0x61 ('a')");
    assertError(":\r\n", "expected a digit in an integer, got 0x0d");
    assertError(":99999999999999999999\r\n", "integer out of range");
    assertError(":1\rx", "expected LF after CR in an integer");
    assertError("$-2\r\n", "bulk string length -2 is negative");
    assertError("$2000\r\n", "bulk string length 2000 exceeds the limit of 1024 bytes");
    assertError("$2\r\nabc\r\n", "expected CRLF after a bulk string");
    assertError("*-3\r\n", "array length -3 is negative");
    assertError("*2000\r\n", "array length 2000 exceeds the limit of 1024");
    assertError("*1\r\n*1\r\n*1\r\n:1\r\n", "arrays nested deeper than 3");
    assertError("+" + "x".repeat(40) + "\r\n", "simple line longer than the limit of 32 bytes");
    assertError("+a\nb\r\n", "LF without CR in a simple line");
  }

  @Test
  void read_truncated_eofInTheMiddle() {
    RespReader reader =
        new RespReader(
            new ByteArrayInputStream("*2\r\n:1\r\n$5\r\nab".getBytes(StandardCharsets.US_ASCII)));
    assertThatThrownBy(reader::read)
        .isInstanceOf(EOFException.class)
        .hasMessage("the server closed the connection in the middle of a reply");
  }

  private static void assertError(String input, String message) {
    RespReader reader =
        new RespReader(
            new ByteArrayInputStream(input.getBytes(StandardCharsets.ISO_8859_1)),
            16,
            1024,
            1024,
            3,
            32);
    assertThatThrownBy(reader::read)
        .as(input)
        .isInstanceOf(RespProtocolException.class)
        .hasMessage(message);
  }

  private static Resp bulk(String s) {
    return new Resp.Bulk(s.getBytes(StandardCharsets.ISO_8859_1));
  }
}
