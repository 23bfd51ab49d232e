package io.idem.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.cluster.CommandRecord.BadRecordException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The command record's layout, pinned by a golden file written apart from the encoder. */
class CommandRecordTest {

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static byte[] golden() throws Exception {
    try (InputStream in =
        CommandRecordTest.class.getResourceAsStream("/cluster/command-record-v1.bin")) {
      return in.readAllBytes();
    }
  }

  @Test
  void version1_isTheGoldenBytes_bothWays() throws Exception {
    CommandRecord r =
        new CommandRecord(
            2, 0x0102030405060708L, List.of(b("BF.ADD"), b("seen:{user42}"), b("item-\0\u00ff")));
    assertThat(r.encode()).isEqualTo(golden());
    CommandRecord back = CommandRecord.decode(golden());
    assertThat(back.origin()).isEqualTo(2);
    assertThat(back.request()).isEqualTo(0x0102030405060708L);
    assertThat(back.args()).hasSize(3);
    for (int i = 0; i < 3; i++) {
      assertThat(back.args().get(i)).isEqualTo(r.args().get(i));
    }
  }

  /**
   * A transaction (flags 1), pinned by bytes Python's struct module wrote: b"IDMR", 1, 1, then
   * {@code >HQ} origin 1 and request 7, {@code >I} 2 commands, each {@code >I} argc and {@code >I}
   * length-prefixed arguments.
   */
  @Test
  void aTransaction_isTheGoldenBytes_bothWays() throws Exception {
    byte[] golden;
    try (InputStream in =
        CommandRecordTest.class.getResourceAsStream("/cluster/transaction-record-v1.bin")) {
      golden = in.readAllBytes();
    }
    List<List<byte[]>> commands =
        List.of(
            List.of(b("BF.ADD"), b("{u42}:seen"), b("item-1")),
            List.of(b("COUNTER.INCRBY"), b("{u42}:clicks"), b("*"), b("home"), b("1")));
    assertThat(CommandRecord.transaction(1, 7, commands).encode()).isEqualTo(golden);
    CommandRecord back = CommandRecord.decode(golden);
    assertThat(back.transaction()).isTrue();
    assertThat(back.commands()).hasSize(2);
    assertThat(back.commands().get(1).get(3)).isEqualTo(b("home"));
    // Cut anywhere, or with a count that lies, it is refused, never read past its end.
    for (int cut = 0; cut < golden.length; cut++) {
      byte[] part = java.util.Arrays.copyOf(golden, cut);
      assertThatThrownBy(() -> CommandRecord.decode(part))
          .isInstanceOf(CommandRecord.BadRecordException.class);
    }
    byte[] lying = golden.clone();
    lying[19] = 3; // three commands, two there
    assertThatThrownBy(() -> CommandRecord.decode(lying))
        .isInstanceOf(CommandRecord.BadRecordException.class);
    byte[] flags = golden.clone();
    flags[5] = 2;
    assertThatThrownBy(() -> CommandRecord.decode(flags)).hasMessageContaining("flags 2");
  }

  @Test
  void outsideProducers_andEveryShape_roundTrip() throws Exception {
    SplittableRandom rnd = new SplittableRandom(20);
    for (int i = 0; i < 2000; i++) {
      List<byte[]> args = new ArrayList<>();
      int n = 1 + rnd.nextInt(i % 100 == 0 ? 2000 : 8);
      for (int j = 0; j < n; j++) {
        byte[] a = new byte[rnd.nextInt(j == 0 ? 20 : 300)];
        rnd.nextBytes(a);
        args.add(a);
      }
      CommandRecord r =
          rnd.nextBoolean()
              ? CommandRecord.outside(args)
              : new CommandRecord(rnd.nextInt(65535), rnd.nextLong(), args);
      CommandRecord back = CommandRecord.decode(r.encode());
      assertThat(back.origin()).isEqualTo(r.origin());
      assertThat(back.request()).isEqualTo(r.request());
      assertThat(back.args()).hasSameSizeAs(args);
      for (int j = 0; j < n; j++) {
        assertThat(back.args().get(j)).isEqualTo(args.get(j));
      }
    }
  }

  @Test
  void everyTruncation_andExtraBytes_areRefused() throws Exception {
    byte[] g = golden();
    for (int len = 0; len < g.length; len++) {
      byte[] cut = Arrays.copyOf(g, len);
      assertThatThrownBy(() -> CommandRecord.decode(cut)).isInstanceOf(BadRecordException.class);
    }
    byte[] longer = Arrays.copyOf(g, g.length + 1);
    assertThatThrownBy(() -> CommandRecord.decode(longer))
        .isInstanceOf(BadRecordException.class)
        .hasMessage("1 bytes after the last argument");
  }

  @Test
  void headerLies_areRefusedBeforeAnyAllocationTheySize() throws Exception {
    byte[] g = golden();
    byte[] magic = g.clone();
    magic[0] = 'X';
    assertThatThrownBy(() -> CommandRecord.decode(magic)).hasMessageContaining("IDMR magic");
    byte[] version = g.clone();
    version[4] = 2;
    assertThatThrownBy(() -> CommandRecord.decode(version))
        .hasMessage("record version 2 is not one this node reads");
    byte[] flags = g.clone();
    flags[5] = 4;
    assertThatThrownBy(() -> CommandRecord.decode(flags)).hasMessageContaining("flags 4");
    byte[] asTransaction = g.clone();
    asTransaction[5] = 1; // a command read as a transaction: its argc (3) as the count, no room
    assertThatThrownBy(() -> CommandRecord.decode(asTransaction))
        .isInstanceOf(CommandRecord.BadRecordException.class);
    byte[] argc = g.clone();
    ByteBuffer.wrap(argc).putInt(16, Integer.MAX_VALUE);
    assertThatThrownBy(() -> CommandRecord.decode(argc)).hasMessageContaining("out of range");
    ByteBuffer.wrap(argc).putInt(16, 1_000_000);
    assertThatThrownBy(() -> CommandRecord.decode(argc)).hasMessageContaining("does not fit");
    byte[] len = g.clone();
    ByteBuffer.wrap(len).putInt(20, -1);
    assertThatThrownBy(() -> CommandRecord.decode(len)).hasMessageContaining("passes the record");
  }

  @Test
  void randomBytes_andMutations_areABadRecordOrARecord_neverAnotherException() {
    SplittableRandom rnd = new SplittableRandom(21);
    byte[] g;
    try {
      g = golden();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    for (int i = 0; i < 20_000; i++) {
      byte[] data;
      if (i % 2 == 0) {
        data = new byte[rnd.nextInt(64)];
        rnd.nextBytes(data);
      } else {
        data = g.clone();
        for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
          data[rnd.nextInt(data.length)] = (byte) rnd.nextInt(256);
        }
      }
      try {
        CommandRecord.decode(data);
      } catch (BadRecordException e) {
        assertThat(e.getMessage()).isNotBlank();
      }
    }
  }
}
