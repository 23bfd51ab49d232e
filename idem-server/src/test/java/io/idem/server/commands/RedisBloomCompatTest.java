package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.RedisBloomCuckoo;
import org.junit.jupiter.api.Test;

/** What clients of RedisBloom look for: MODULE LIST, INFO's modules, BF.DEBUG and CF.DEBUG. */
class RedisBloomCompatTest {

  private final Harness h = new Harness();

  @Test
  void moduleList_andInfoModules_nameRedisBlooms_bf() {
    assertThat(h.show("MODULE", "LIST"))
        .isEqualTo("[{name=\"bf\", ver=(integer) 20628, path=\"built in\", args=[]}]");
    assertThat(h.show("INFO", "modules"))
        .contains("# Modules\r\nmodule:name=bf,ver=20628,api=1,filters=0,usedby=[],using=[]");
    assertThat(h.show("INFO")).contains("\r\nmodule:name=bf,ver=20628,");
  }

  @Test
  void bfDebug_ofAFilterFromRedisBloom_isRedisBlooms() {
    byte[] header = RedisBloomChain.create(1000, 0.01, 2, false).dumpHeader();
    h.call(Harness.bytes("BF.LOADCHUNK"), Harness.bytes("f"), Harness.bytes("1"), header);
    // RedisBloom's BF.DEBUG for BF.RESERVE f 0.01 1000.
    assertThat(h.show("BF.DEBUG", "f"))
        .isEqualTo(
            "[\"size:0\", \"bytes:1384 bits:11072 hashes:8 hashwidth:64 capacity:1000 size:0"
                + " ratio:0.005\"]");
    // A new filter takes RedisBloom's layout: RedisBloom's line for BF.ADD classic x.
    h.call("BF.ADD", "classic", "x");
    assertThat(h.show("BF.DEBUG", "classic"))
        .isEqualTo(
            "[\"size:1\", \"bytes:144 bits:1152 hashes:8 hashwidth:64 capacity:100 size:1"
                + " ratio:0.005\"]");
    h.config.set("bf-layout", "blocked");
    h.call("BF.ADD", "idem", "x");
    assertThat(h.show("BF.DEBUG", "idem"))
        .startsWith("[\"size:1\", \"bytes:")
        .contains("hashwidth:128 capacity:100 size:1 ratio:0.005\"]");
    assertThat(h.show("BF.DEBUG", "missing")).isEqualTo("(error) ERR not found");
  }

  @Test
  void cfDebug_isRedisBloomsLine() {
    byte[] header = RedisBloomCuckoo.create(1000, 2, 20, 1).dumpHeader();
    h.call(Harness.bytes("CF.LOADCHUNK"), Harness.bytes("c"), Harness.bytes("1"), header);
    h.call("CF.ADD", "c", "x");
    assertThat(h.show("CF.DEBUG", "c"))
        .isEqualTo(
            "\"bktsize:2 buckets:512 items:1 deletes:0 filters:1 max_iterations:20 expansion:1\"");
    h.call("CF.RESERVE", "idem", "1000");
    assertThat(h.show("CF.DEBUG", "idem")).startsWith("\"bktsize:2 buckets:").contains(" items:0 ");
  }

  @Test
  void printfG_isCs() {
    assertThat(RedisBloomChain.printfG(0.005)).isEqualTo("0.005");
    assertThat(RedisBloomChain.printfG(0.000125)).isEqualTo("0.000125");
    assertThat(RedisBloomChain.printfG(1.25e-5)).isEqualTo("1.25e-05");
    assertThat(RedisBloomChain.printfG(1e-10)).isEqualTo("1e-10");
    assertThat(RedisBloomChain.printfG(0.1)).isEqualTo("0.1");
    assertThat(RedisBloomChain.printfG(1.0 / 3)).isEqualTo("0.333333");
    assertThat(RedisBloomChain.printfG(0.0078125)).isEqualTo("0.0078125");
  }
}
