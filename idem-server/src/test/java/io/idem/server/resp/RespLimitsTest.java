package io.idem.server.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.dispatch.Config;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class RespLimitsTest {

  @Test
  void from_defaultConfig_redisDefaults() {
    assertThat(RespLimits.from(Config.defaults())).isEqualTo(RespLimits.DEFAULTS);
  }

  @Test
  void tracking_configSet_seenByTheNextGet() {
    Config config = Config.defaults();
    Supplier<RespLimits> limits = RespLimits.tracking(config);
    config.set("proto-max-bulk-len", "2mb");
    config.set("max-multibulk-len", "7");
    config.set("max-inline-len", "4kb");
    config.set("client-query-buffer-limit", "16mb");
    assertThat(limits.get()).isEqualTo(new RespLimits(2 << 20, 7, 4 << 10, 16 << 20));
  }

  @Test
  void new_nonPositive_throwsNamingTheValue() {
    assertThatThrownBy(() -> new RespLimits(0, 1, 1, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBulkLength (0) must be > 0");
    assertThatThrownBy(() -> new RespLimits(1, 1, 1, -5))
        .hasMessage("maxQueryBuffer (-5) must be > 0");
  }
}
