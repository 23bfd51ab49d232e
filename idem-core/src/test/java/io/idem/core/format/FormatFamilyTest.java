package io.idem.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FormatFamilyTest {
  @Test
  void ids_areAppendOnly() {
    // A released id never changes meaning: stored bytes from every earlier build depend on it.
    assertThat(FormatFamily.BLOOM.id()).isEqualTo(1);
    assertThat(FormatFamily.SCALABLE_BLOOM.id()).isEqualTo(2);
    assertThat(FormatFamily.CUCKOO.id()).isEqualTo(3);
    assertThat(FormatFamily.RECENT_SET.id()).isEqualTo(4);
    assertThat(FormatFamily.COUNT_MIN.id()).isEqualTo(5);
    assertThat(FormatFamily.HYPERLOGLOG.id()).isEqualTo(6);
    assertThat(FormatFamily.TOPK.id()).isEqualTo(7);
    assertThat(FormatFamily.TDIGEST.id()).isEqualTo(8);
    assertThat(FormatFamily.REDISBLOOM_CHAIN.id()).isEqualTo(9);
    assertThat(FormatFamily.REDISBLOOM_CUCKOO.id()).isEqualTo(10);
    assertThat(FormatFamily.SEEN_CACHE.id()).isEqualTo(11);
    assertThat(FormatFamily.values()).hasSize(11);
  }

  @Test
  void byId_unknown_isNull() {
    assertThat(FormatFamily.byId(0)).isNull();
    assertThat(FormatFamily.byId(99)).isNull();
    assertThat(FormatFamily.byId(3)).isEqualTo(FormatFamily.CUCKOO);
  }
}
