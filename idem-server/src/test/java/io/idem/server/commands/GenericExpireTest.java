package io.idem.server.commands;

import static io.idem.server.commands.GenericKeyspaceTest.put;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.reply.Reply;
import org.junit.jupiter.api.Test;

/**
 * EXPIRE and its relatives. Absolute times far in the future keep the assertions exact; relative
 * ones are checked only for their range.
 */
class GenericExpireTest {

  /** 2096-10-02: far enough ahead that no run of these tests reaches it. */
  private static final long FAR = 4_000_000_000L;

  private final Harness h = new Harness();

  @Test
  void expireat_thenExpiretime_roundTrips() {
    put(h, "a");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR))).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIRETIME", "a")).isEqualTo("(integer) " + FAR);
    assertThat(h.show("PEXPIRETIME", "a")).isEqualTo("(integer) " + FAR * 1000);
    assertThat(h.show("PEXPIREAT", "a", Long.toString(FAR * 1000 + 1))).isEqualTo("(integer) 1");
    assertThat(h.show("PEXPIRETIME", "a")).isEqualTo("(integer) " + (FAR * 1000 + 1));
  }

  @Test
  void expire_relative_setsATtlInRange() {
    put(h, "a", "b");
    assertThat(h.show("EXPIRE", "a", "1000")).isEqualTo("(integer) 1");
    assertThat(((Reply.Int) h.call("TTL", "a")).value()).isBetween(999L, 1000L);
    assertThat(((Reply.Int) h.call("PTTL", "a")).value()).isBetween(1L, 1_000_000L);
    assertThat(h.show("PEXPIRE", "b", "5000000")).isEqualTo("(integer) 1");
    assertThat(((Reply.Int) h.call("PTTL", "b")).value()).isBetween(1L, 5_000_000L);
  }

  @Test
  void ttl_missingAndPersistentKeys() {
    put(h, "a");
    for (String cmd : new String[] {"TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"}) {
      assertThat(h.show(cmd, "nope")).as(cmd).isEqualTo("(integer) -2");
      assertThat(h.show(cmd, "a")).as(cmd).isEqualTo("(integer) -1");
    }
  }

  @Test
  void expire_missingKey_isZero() {
    assertThat(h.show("EXPIRE", "nope", "100")).isEqualTo("(integer) 0");
    assertThat(h.show("PEXPIREAT", "nope", "1")).isEqualTo("(integer) 0");
  }

  @Test
  void expire_inThePast_deletesTheKey() {
    put(h, "a", "b");
    assertThat(h.show("PEXPIREAT", "a", "1")).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIRE", "b", "-5")).isEqualTo("(integer) 1");
    assertThat(h.show("EXISTS", "a", "b")).isEqualTo("(integer) 0");
  }

  @Test
  void persist_removesTheExpiryOnce() {
    put(h, "a");
    assertThat(h.show("PERSIST", "a")).isEqualTo("(integer) 0");
    h.call("EXPIREAT", "a", Long.toString(FAR));
    assertThat(h.show("PERSIST", "a")).isEqualTo("(integer) 1");
    assertThat(h.show("TTL", "a")).isEqualTo("(integer) -1");
    assertThat(h.show("PERSIST", "nope")).isEqualTo("(integer) 0");
  }

  @Test
  void nx_setsOnlyWithoutExpiry() {
    put(h, "a");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR), "NX")).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR + 9), "nx")).isEqualTo("(integer) 0");
    assertThat(h.show("EXPIRETIME", "a")).isEqualTo("(integer) " + FAR);
  }

  @Test
  void xx_setsOnlyWithExpiry() {
    put(h, "a");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR), "XX")).isEqualTo("(integer) 0");
    h.call("EXPIREAT", "a", Long.toString(FAR));
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR + 1), "XX")).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIRETIME", "a")).isEqualTo("(integer) " + (FAR + 1));
  }

  @Test
  void gt_treatsNoExpiryAsInfinite() {
    put(h, "a");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR), "GT")).isEqualTo("(integer) 0");
    h.call("EXPIREAT", "a", Long.toString(FAR));
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR), "GT")).isEqualTo("(integer) 0");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR + 5), "GT")).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR + 9), "XX", "GT"))
        .isEqualTo("(integer) 1");
    assertThat(h.show("EXPIRETIME", "a")).isEqualTo("(integer) " + (FAR + 9));
  }

  @Test
  void lt_treatsNoExpiryAsInfinite() {
    put(h, "a", "b");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR), "LT")).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR + 1), "LT")).isEqualTo("(integer) 0");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR - 1), "LT")).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIRETIME", "a")).isEqualTo("(integer) " + (FAR - 1));
  }

  @Test
  void xxLt_needsAnExpiryAndASoonerTime() {
    put(h, "a");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR), "XX", "LT")).isEqualTo("(integer) 0");
    assertThat(h.show("TTL", "a")).isEqualTo("(integer) -1");
    h.call("EXPIREAT", "a", Long.toString(FAR));
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR + 1), "LT", "XX"))
        .isEqualTo("(integer) 0");
    assertThat(h.show("EXPIREAT", "a", Long.toString(FAR - 1), "LT", "XX"))
        .isEqualTo("(integer) 1");
    assertThat(h.show("EXPIRETIME", "a")).isEqualTo("(integer) " + (FAR - 1));
  }

  @Test
  void conflictingOptions_areRefused_beforeAnyChange() {
    put(h, "a");
    String nx = "(error) ERR NX and XX, GT or LT options at the same time are not compatible";
    assertThat(h.show("EXPIRE", "a", "100", "NX", "XX")).isEqualTo(nx);
    assertThat(h.show("EXPIRE", "a", "100", "GT", "NX")).isEqualTo(nx);
    assertThat(h.show("EXPIRE", "a", "100", "NX", "LT")).isEqualTo(nx);
    assertThat(h.show("EXPIRE", "a", "100", "GT", "LT"))
        .isEqualTo("(error) ERR GT and LT options at the same time are not compatible");
    assertThat(h.show("EXPIRE", "a", "100", "SOON"))
        .isEqualTo("(error) ERR Unsupported option SOON");
    assertThat(h.show("TTL", "a")).isEqualTo("(integer) -1");
  }

  @Test
  void optionsAreCheckedBeforeTheTime() {
    assertThat(h.show("EXPIRE", "a", "soon", "SOON"))
        .isEqualTo("(error) ERR Unsupported option SOON");
    assertThat(h.show("EXPIRE", "a", "soon"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
    assertThat(h.show("PEXPIRE", "a", "1.5"))
        .isEqualTo("(error) ERR value is not an integer or out of range");
  }

  @Test
  void overflowingTimes_areInvalidExpireTimes_evenForMissingKeys() {
    String max = Long.toString(Long.MAX_VALUE);
    assertThat(h.show("EXPIRE", "nope", max))
        .isEqualTo("(error) ERR invalid expire time in 'expire' command");
    assertThat(h.show("EXPIREAT", "nope", "-9223372036854776"))
        .isEqualTo("(error) ERR invalid expire time in 'expireat' command");
    assertThat(h.show("PEXPIRE", "nope", max))
        .isEqualTo("(error) ERR invalid expire time in 'pexpire' command");
    assertThat(h.show("PEXPIREAT", "nope", max)).isEqualTo("(integer) 0");
  }

  @Test
  void largestTimes_stillExpire() {
    put(h, "a", "b");
    assertThat(h.show("EXPIREAT", "a", "9223372036854775")).isEqualTo("(integer) 1");
    assertThat(h.show("EXPIRETIME", "a")).isEqualTo("(integer) 9223372036854775");
    // The engine's "no expiry" is Long.MAX_VALUE: the largest time is kept one millisecond short.
    assertThat(h.show("PEXPIREAT", "b", Long.toString(Long.MAX_VALUE))).isEqualTo("(integer) 1");
    assertThat(h.show("PEXPIRETIME", "b")).isEqualTo("(integer) " + (Long.MAX_VALUE - 1));
  }

  @Test
  void wrongArity_namesTheCommand() {
    assertThat(h.show("EXPIRE", "a"))
        .isEqualTo("(error) ERR wrong number of arguments for 'expire' command");
    assertThat(h.show("TTL")).isEqualTo("(error) ERR wrong number of arguments for 'ttl' command");
    assertThat(h.show("PERSIST", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'persist' command");
  }
}
