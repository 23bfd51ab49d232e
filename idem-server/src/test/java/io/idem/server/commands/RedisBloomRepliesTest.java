package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.request.Command;
import io.idem.server.resp.RespEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The differential test: every command of cases.txt, run here as RedisBloom 2.6.28 ran it
 * (replies.txt, recorded byte for byte by scripts/redisbloom-replies.py), must give the same RESP2
 * bytes, except where {@link #DIFFERENCES} says why not. A difference listed that no longer differs
 * fails too, so the list stays true.
 */
class RedisBloomRepliesTest {

  /** Replies Idem gives on purpose, or does not match yet, and why. */
  static final Map<String, String> DIFFERENCES = new LinkedHashMap<>();

  static {
    DIFFERENCES.put(
        "CMS.QUERY m a b c",
        "Idem's count-min sketch hashes with its own 128-bit hash, RedisBloom's with MurmurHash2: in"
            + " a sketch this small (width 10) they collide on different items. Same bounds.");
    DIFFERENCES.put(
        "TOPK.INFO t",
        "a double reply under RESP2: the recording server, Redis 7.0, prints %.17g"
            + " (0.90000000000000002); Redis 7.2 and later print the shortest form (0.9), as Idem"
            + " does, which follows Redis 7.4.");
  }

  static String resource(String name) throws IOException {
    try (InputStream in = RedisBloomRepliesTest.class.getResourceAsStream("/redisbloom/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** As scripts/redisbloom-replies.py escapes a reply. */
  static String escape(byte[] data) {
    StringBuilder b = new StringBuilder();
    for (byte x : data) {
      int c = x & 0xff;
      switch (c) {
        case '\r' -> b.append("\\r");
        case '\n' -> b.append("\\n");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c >= 32 && c < 127) {
            b.append((char) c);
          } else {
            b.append(String.format("\\x%02x", c));
          }
        }
      }
    }
    return b.toString();
  }

  static String resp2(io.idem.server.reply.Reply reply) {
    ByteBuf buf = Unpooled.buffer();
    try {
      RespEncoder.write(reply, 2, buf);
      byte[] bytes = new byte[buf.readableBytes()];
      buf.readBytes(bytes);
      return escape(bytes);
    } finally {
      buf.release();
    }
  }

  @Test
  void everyReply_isRedisBlooms_byteForByte_butTheListedDifferences() throws Exception {
    Map<String, String> expected = new LinkedHashMap<>();
    List<String> order = new ArrayList<>();
    for (String line : resource("replies.txt").split("\n")) {
      int tab = line.indexOf('\t');
      order.add(line.substring(0, tab));
      expected.put(order.size() - 1 + " " + line.substring(0, tab), line.substring(tab + 1));
    }
    Harness h = null;
    int index = 0;
    List<String> mismatches = new ArrayList<>();
    List<String> stale = new ArrayList<>();
    boolean fresh = true;
    for (String text : resource("cases.txt").split("\n")) {
      if (text.startsWith("#")) {
        continue;
      }
      if (text.isBlank()) {
        fresh = true;
        continue;
      }
      if (fresh) {
        h = new Harness();
        fresh = false;
      }
      assertThat(text).isEqualTo(order.get(index));
      String want = expected.get(index + " " + text);
      String got = resp2(h.dispatcher.dispatch(h.session, Command.of(text.split(" "))));
      String why = DIFFERENCES.get(text);
      if (!got.equals(want) && why == null) {
        mismatches.add(text + "\n    RedisBloom: " + want + "\n    Idem:       " + got);
      } else if (got.equals(want) && why != null) {
        stale.add(text);
      }
      index++;
    }
    assertThat(index).as("commands run").isEqualTo(order.size()).isGreaterThanOrEqualTo(150);
    assertThat(mismatches).as("replies that differ from RedisBloom's").isEmpty();
    assertThat(stale).as("listed differences that no longer differ").isEmpty();
  }
}
