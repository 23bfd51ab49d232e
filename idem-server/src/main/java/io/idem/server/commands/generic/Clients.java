package io.idem.server.commands.generic;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.dispatch.Session;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** CLIENT's subcommands: ID, INFO, LIST, KILL, SETNAME, GETNAME, SETINFO. */
public final class Clients {

  static final String NO_SUCH_CLIENT = "ERR No such client";
  static final String BAD_CLIENT_ID = "ERR Invalid client ID";
  static final String ID_NOT_POSITIVE = "ERR client-id should be greater than 0";
  static final String MAXAGE_NOT_INTEGER = "ERR maxage is not an integer or out of range";
  static final String MAXAGE_NOT_POSITIVE = "ERR maxage should be greater than 0";

  private Clients() {}

  public static Reply id(Call call) {
    return Reply.integer(call.session().id());
  }

  /** CLIENT INFO: this connection's CLIENT LIST line. */
  public static Reply info(Call call) {
    return new Reply.Verbatim("txt", line(call.session(), now(call)) + "\n");
  }

  /** CLIENT LIST [TYPE type] [ID id [id ...]]. */
  public static Reply list(Call call) {
    long now = now(call);
    StringBuilder b = new StringBuilder();
    if (call.argc() == 4 && call.is(2, "TYPE")) {
      boolean normal = isNormalType(call.arg(3));
      if (normal) {
        for (Session s : call.server().sessions()) {
          b.append(line(s, now)).append('\n');
        }
      }
    } else if (call.argc() > 3 && call.is(2, "ID")) {
      List<Long> ids = new ArrayList<>();
      for (int i = 3; i < call.argc(); i++) {
        ids.add(Parse.longArg(call.arg(i), BAD_CLIENT_ID));
      }
      for (long id : ids) {
        Session s = byId(call, id);
        if (s != null) {
          b.append(line(s, now)).append('\n');
        }
      }
    } else if (call.argc() != 2) {
      throw new CommandException(Errors.SYNTAX);
    } else {
      for (Session s : call.server().sessions()) {
        b.append(line(s, now)).append('\n');
      }
    }
    return new Reply.Verbatim("txt", b.toString());
  }

  /**
   * CLIENT KILL addr, or CLIENT KILL [ID id] [ADDR addr] [LADDR addr] [TYPE type] [USER user]
   * [SKIPME yes|no] [MAXAGE seconds]. The old form replies OK or an error and may kill the caller;
   * the new form replies the count and skips the caller unless SKIPME no.
   */
  public static Reply kill(Call call) {
    Session me = call.session();
    boolean oldForm = call.argc() == 3;
    @Nullable String addr = null;
    @Nullable String laddr = null;
    long id = 0;
    long maxAge = 0;
    boolean skipMe = !oldForm;
    boolean noneMatch = false;
    if (oldForm) {
      addr = Parse.text(call.arg(2));
    } else {
      for (int i = 2; i < call.argc(); i += 2) {
        boolean more = i + 1 < call.argc();
        if (!more) {
          throw new CommandException(Errors.SYNTAX);
        }
        byte[] v = call.arg(i + 1);
        if (call.is(i, "ID")) {
          id = Parse.longArg(v, ID_NOT_POSITIVE);
          if (id < 1) {
            throw new CommandException(ID_NOT_POSITIVE);
          }
        } else if (call.is(i, "MAXAGE")) {
          maxAge = Parse.longArg(v, MAXAGE_NOT_INTEGER);
          if (maxAge <= 0) {
            throw new CommandException(MAXAGE_NOT_POSITIVE);
          }
        } else if (call.is(i, "TYPE")) {
          noneMatch |= !isNormalType(v);
        } else if (call.is(i, "ADDR")) {
          addr = Parse.text(v);
        } else if (call.is(i, "LADDR")) {
          laddr = Parse.text(v);
        } else if (call.is(i, "USER")) {
          if (!Parse.text(v).equals("default")) {
            throw CommandException.err(
                "No such user '" + ConnectionHandlers.clip(Parse.text(v)) + "'");
          }
        } else if (call.is(i, "SKIPME")) {
          if (call.is(i + 1, "yes")) {
            skipMe = true;
          } else if (call.is(i + 1, "no")) {
            skipMe = false;
          } else {
            throw new CommandException(Errors.SYNTAX);
          }
        } else {
          throw new CommandException(Errors.SYNTAX);
        }
      }
    }
    long nowSeconds = now(call) / 1000;
    List<Session> victims = new ArrayList<>();
    if (!noneMatch) {
      for (Session s : call.server().sessions()) {
        if ((addr != null && !s.address().equals(addr))
            || (laddr != null && !s.localAddress().equals(laddr))
            || (id != 0 && s.id() != id)
            || (s == me && skipMe)
            || (maxAge != 0 && nowSeconds - s.createdMillis() / 1000 < maxAge)) {
          continue;
        }
        victims.add(s);
      }
    }
    // Close after choosing: closing may remove a session from the collection being read.
    for (Session s : victims) {
      s.close();
    }
    if (oldForm) {
      if (victims.isEmpty()) {
        throw new CommandException(NO_SUCH_CLIENT);
      }
      return Reply.OK;
    }
    return Reply.integer(victims.size());
  }

  /** CLIENT SETNAME name: printable ASCII without spaces; an empty name removes it. */
  public static Reply setName(Call call) {
    byte[] name = call.arg(2);
    ConnectionHandlers.checkClientName(name);
    call.session().setName(name.length == 0 ? null : Parse.text(name));
    return Reply.OK;
  }

  public static Reply getName(Call call) {
    String name = call.session().name();
    return name == null ? Reply.NULL : Reply.bulk(name);
  }

  /**
   * CLIENT SETINFO LIB-NAME|LIB-VER value: checked as Redis checks it, then not kept (Jedis and
   * Lettuce send it on connect; Idem does not show it in CLIENT LIST yet).
   */
  public static Reply setInfo(Call call) {
    String attr = Parse.text(call.arg(2));
    if (!call.is(2, "lib-name") && !call.is(2, "lib-ver")) {
      throw CommandException.err("Unrecognized option '" + ConnectionHandlers.clip(attr) + "'");
    }
    if (!ConnectionHandlers.isPrintableWord(call.arg(3))) {
      throw CommandException.err(
          ConnectionHandlers.clip(attr)
              + " cannot contain spaces, newlines or special characters.");
    }
    return Reply.OK;
  }

  /** One line of CLIENT LIST, with the fields Idem knows, in Redis's order and format. */
  static String line(Session s, long nowMillis) {
    String name = s.name();
    return "id="
        + s.id()
        + " addr="
        + s.address()
        + " laddr="
        + s.localAddress()
        + " name="
        + (name == null ? "" : name)
        + " age="
        + Math.max(0, (nowMillis - s.createdMillis()) / 1000)
        + " idle="
        + Math.max(0, (nowMillis - s.lastCommandMillis()) / 1000)
        + " flags="
        + (s.closing() ? "c" : s.queuedCount() >= 0 ? "x" : "N")
        + " db=0 sub=0 psub=0 ssub=0 multi="
        + s.queuedCount()
        + " watch="
        + s.watchedCount()
        + " qbuf="
        + s.queryBytes()
        + " omem="
        + s.outputBytes()
        + " tot-mem="
        + (s.queryBytes() + s.outputBytes())
        + " cmd="
        + s.lastCommand()
        + " user=default redir=-1 resp="
        + s.protocol();
  }

  /** Redis's client type names; every Idem connection is a normal one. */
  private static boolean isNormalType(byte[] type) {
    String t = Parse.text(type);
    return switch (t.toLowerCase(Locale.ROOT)) {
      case "normal" -> true;
      case "master", "replica", "slave", "pubsub" -> false;
      default ->
          throw CommandException.err("Unknown client type '" + ConnectionHandlers.clip(t) + "'");
    };
  }

  private static @Nullable Session byId(Call call, long id) {
    for (Session s : call.server().sessions()) {
      if (s.id() == id) {
        return s;
      }
    }
    return null;
  }

  private static long now(Call call) {
    return call.engine().now();
  }
}
