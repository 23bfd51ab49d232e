package io.idem.server.commands.generic;

import io.idem.server.dispatch.Call;
import io.idem.server.reply.Reply;
import java.util.List;

/**
 * The module clients look for: RedisBloom's {@code bf}. Idem has no modules, but clients decide
 * from MODULE LIST or INFO's modules section whether the server speaks BF.*, CF.*, CMS.*, TOPK.*
 * and TDIGEST.* (some refuse those commands otherwise). The version is RedisBloom 2.6.28's, whose
 * commands Idem follows, as {@code redis_version} names the Redis whose commands it follows.
 */
public final class Modules {

  public static final String NAME = "bf";

  /** RedisBloom's version encoding: major * 10000 + minor * 100 + patch. */
  public static final long VERSION = 20628;

  private Modules() {}

  /** MODULE LIST: one module, as Redis 7 lists it (a map; a flat array under RESP2). */
  public static Reply list(Call call) {
    return Reply.array(
        Reply.map(
            List.of(
                Reply.simple("name"), Reply.bulk(NAME),
                Reply.simple("ver"), Reply.integer(VERSION),
                Reply.simple("path"), Reply.bulk("built in"),
                Reply.simple("args"), Reply.array(List.of()))));
  }

  /** INFO's modules section: one line a module, as Redis 7 writes it. */
  static void info(StringBuilder b) {
    b.append("# Modules\r\n")
        .append("module:name=")
        .append(NAME)
        .append(",ver=")
        .append(VERSION)
        .append(",api=1,filters=0,usedby=[],using=[],options=[]\r\n");
  }
}
