package io.idem.server.commands.generic;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Handler;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Engine;
import io.idem.server.engine.Engine.ExpireCondition;
import io.idem.server.engine.Entry;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Redis's keyspace commands over the engine: DEL, EXISTS, TYPE, RENAME, EXPIRE, SCAN, ... */
public final class Keyspace {

  static final String INVALID_CURSOR = "ERR invalid cursor";
  static final String NX_WITH_OTHERS =
      "ERR NX and XX, GT or LT options at the same time are not compatible";
  static final String GT_AND_LT = "ERR GT and LT options at the same time are not compatible";
  static final String NOVALUES_ONLY_HSCAN = "ERR NOVALUES option can only be used in HSCAN";

  private Keyspace() {}

  /** DEL key [key ...] and UNLINK: how many existed. */
  public static Reply del(Call call) {
    return Reply.integer(call.engine().delete(keys(call, 1)));
  }

  /** EXISTS key [key ...]: how many exist, a repeated key counted each time. */
  public static Reply exists(Call call) {
    return Reply.integer(call.engine().exists(keys(call, 1)));
  }

  /** TYPE key: the type name as a status, "none" if missing. */
  public static Reply type(Call call) {
    return Reply.simple(call.engine().type(call.arg(1)));
  }

  /** RENAME key newkey. */
  public static Reply rename(Call call) {
    return switch (call.engine().rename(call.arg(1), call.arg(2), false)) {
      case NO_SUCH_KEY -> throw new CommandException(Errors.NO_SUCH_KEY);
      case RENAMED, TARGET_EXISTS -> Reply.OK;
    };
  }

  /** RENAMENX key newkey: 1 if renamed, 0 if newkey exists. */
  public static Reply renameNx(Call call) {
    return switch (call.engine().rename(call.arg(1), call.arg(2), true)) {
      case NO_SUCH_KEY -> throw new CommandException(Errors.NO_SUCH_KEY);
      case RENAMED -> Reply.ONE;
      case TARGET_EXISTS -> Reply.ZERO;
    };
  }

  /**
   * EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT: key time [NX | XX | GT | LT].
   *
   * @param name the command, for the error text
   * @param seconds whether the time is in seconds (else milliseconds)
   * @param absolute whether the time is since the epoch (else from now)
   */
  public static Handler expire(String name, boolean seconds, boolean absolute) {
    String badTime = "ERR invalid expire time in '" + name + "' command";
    return call -> {
      boolean nx = false;
      boolean xx = false;
      boolean gt = false;
      boolean lt = false;
      for (int i = 3; i < call.argc(); i++) {
        if (call.is(i, "NX")) {
          nx = true;
        } else if (call.is(i, "XX")) {
          xx = true;
        } else if (call.is(i, "GT")) {
          gt = true;
        } else if (call.is(i, "LT")) {
          lt = true;
        } else {
          throw CommandException.err(
              "Unsupported option " + ConnectionHandlers.clip(Parse.text(call.arg(i))));
        }
      }
      if (nx && (xx || gt || lt)) {
        throw new CommandException(NX_WITH_OTHERS);
      }
      if (gt && lt) {
        throw new CommandException(GT_AND_LT);
      }
      long when = Parse.longArg(call.arg(2));
      if (seconds) {
        if (when > Long.MAX_VALUE / 1000 || when < Long.MIN_VALUE / 1000) {
          throw new CommandException(badTime);
        }
        when *= 1000;
      }
      Engine engine = call.engine();
      long base = absolute ? 0 : engine.now();
      if (when > Long.MAX_VALUE - base) {
        throw new CommandException(badTime);
      }
      // Long.MAX_VALUE means "no expiry" to the engine; a millisecond earlier is the same future.
      long at = Math.min(when + base, Entry.PERSISTENT - 1);
      byte[] key = call.arg(1);
      ExpireCondition cond;
      if (nx) {
        cond = ExpireCondition.NX;
      } else if (gt) {
        cond = ExpireCondition.GT; // GT already fails on a key without expiry, as XX would
      } else if (lt) {
        cond = ExpireCondition.LT;
        // XX LT: the engine has no such condition. Check XX first; a PERSIST between the two
        // calls could let LT set an expiry on a key XX would have refused (see the report).
        if (xx && engine.expireTimeMillis(key) < 0) {
          return Reply.ZERO;
        }
      } else {
        cond = xx ? ExpireCondition.XX : ExpireCondition.ALWAYS;
      }
      return engine.expireAt(key, at, cond) ? Reply.ONE : Reply.ZERO;
    };
  }

  /**
   * TTL, PTTL, EXPIRETIME and PEXPIRETIME: -2 if the key is missing, -1 if it has no expiry.
   * Seconds are rounded to the nearest, as Redis does.
   */
  public static Handler ttl(boolean seconds, boolean absolute) {
    return call -> {
      Engine engine = call.engine();
      long v = absolute ? engine.expireTimeMillis(call.arg(1)) : engine.ttlMillis(call.arg(1));
      return Reply.integer(v >= 0 && seconds ? (v + 500) / 1000 : v);
    };
  }

  /** PERSIST key: 1 if an expiry was removed. */
  public static Reply persist(Call call) {
    return call.engine().persist(call.arg(1)) ? Reply.ONE : Reply.ZERO;
  }

  /** DEBUG DIGEST: the keyspace's digest in hexadecimal (40 zeros when empty). */
  public static Reply digest(Call call) {
    return Reply.bulk(java.util.HexFormat.of().formatHex(call.engine().digest()));
  }

  /** DEBUG DIGEST-VALUE key [key ...]: each key's digest in hexadecimal (zeros if missing). */
  public static Reply digestValue(Call call) {
    List<Reply> out = new ArrayList<>();
    for (int i = 2; i < call.argc(); i++) {
      out.add(Reply.bulk(java.util.HexFormat.of().formatHex(call.engine().digestOf(call.arg(i)))));
    }
    return Reply.array(out);
  }

  /**
   * EXPIREDUE key: deletes the key if its time to live has run out (at the record's time, on a node
   * with a log); 1 if the key is absent afterwards, 0 if it lives. How a node with a log expires
   * keys: its due keys become these records, so every replica deletes them at one point of the log.
   */
  public static Reply expireDue(Call call) {
    return call.engine().expireIfDue(call.arg(1)) ? Reply.ONE : Reply.ZERO;
  }

  /**
   * WINDOWDUE key: moves the key's window to now (the record's time, on a node with a log): an
   * exact dedup table drops the slices that left it, a counter or distinct count the rows past
   * their retention. 1 if it dropped anything, else 0 (a free key, a type without a window, nothing
   * due). How a node with a log moves windows: the acting node's clock makes these records.
   */
  public static Reply windowDue(Call call) {
    return call.engine().moveWindow(call.arg(1)) ? Reply.ONE : Reply.ZERO;
  }

  /** SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]. */
  public static Reply scan(Call call) {
    Long cursor = Parse.unsignedOrNull(call.arg(1));
    if (cursor == null) {
      throw new CommandException(INVALID_CURSOR);
    }
    long count = 10;
    byte @Nullable [] match = null;
    @Nullable String type = null;
    for (int i = 2; i < call.argc(); i += 2) {
      boolean hasValue = i + 1 < call.argc();
      if (call.is(i, "COUNT") && hasValue) {
        count = Parse.longArg(call.arg(i + 1));
        if (count < 1) {
          throw new CommandException(Errors.SYNTAX);
        }
      } else if (call.is(i, "MATCH") && hasValue) {
        byte[] p = call.arg(i + 1);
        match = p.length == 1 && p[0] == '*' ? null : p;
      } else if (call.is(i, "TYPE") && hasValue) {
        type = Parse.text(call.arg(i + 1));
      } else if (call.is(i, "NOVALUES")) {
        throw new CommandException(NOVALUES_ONLY_HSCAN);
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    Engine.ScanPage page =
        call.engine().scan(cursor, (int) Math.min(count, Integer.MAX_VALUE), match, type);
    return Reply.array(Reply.bulk(Long.toUnsignedString(page.cursor())), bulks(page.keys()));
  }

  /** KEYS pattern: every matching key; O(keys). */
  public static Reply keys(Call call) {
    return bulks(call.engine().keys(call.arg(1)));
  }

  /** DBSIZE: keys held, including expired ones not yet removed, as Redis counts. */
  public static Reply dbSize(Call call) {
    return Reply.integer(call.engine().size());
  }

  /** FLUSHDB and FLUSHALL [ASYNC | SYNC]: the flush is the same either way (the engine's). */
  public static Reply flush(Call call) {
    if (call.argc() > 2 || (call.argc() == 2 && !call.is(1, "ASYNC") && !call.is(1, "SYNC"))) {
      throw new CommandException(Errors.SYNTAX);
    }
    call.engine().flush();
    return Reply.OK;
  }

  /**
   * MEMORY USAGE key [SAMPLES count]: bytes the key and its value hold, or null if missing. Idem
   * measures values exactly, so SAMPLES is checked and then has nothing to change.
   */
  public static Reply memoryUsage(Call call) {
    for (int i = 3; i < call.argc(); i++) {
      if (call.is(i, "SAMPLES") && i + 1 < call.argc()) {
        if (Parse.longArg(call.arg(i + 1)) < 0) {
          throw new CommandException(Errors.SYNTAX);
        }
        i++;
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    long bytes = call.engine().memoryUsage(call.arg(2));
    return bytes < 0 ? Reply.NULL : Reply.integer(bytes);
  }

  private static List<byte[]> keys(Call call, int from) {
    List<byte[]> out = new ArrayList<>(call.argc() - from);
    for (int i = from; i < call.argc(); i++) {
      out.add(call.arg(i));
    }
    return out;
  }

  private static Reply bulks(List<byte[]> items) {
    List<Reply> out = new ArrayList<>(items.size());
    for (byte[] b : items) {
      out.add(Reply.bulk(b));
    }
    return Reply.array(out);
  }
}
