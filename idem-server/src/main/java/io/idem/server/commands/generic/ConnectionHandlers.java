package io.idem.server.commands.generic;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.dispatch.Session;
import io.idem.server.reply.Reply;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** PING, ECHO, QUIT, SELECT, HELLO and AUTH. */
public final class ConnectionHandlers {

  /** The Redis version HELLO and INFO report, so clients that gate features on it work. */
  public static final String REDIS_VERSION = "7.4.0";

  static final String DB_OUT_OF_RANGE = "ERR DB index is out of range";
  static final String NOPROTO = "NOPROTO unsupported protocol version";
  static final String BAD_PROTO = "ERR Protocol version is not an integer or out of range";
  static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
  static final String NO_PASSWORD_SET =
      "ERR AUTH <password> called without any password configured for the default user. Are you"
          + " sure your configuration is correct?";
  static final String HELLO_NOAUTH =
      "NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO"
          + " <proto> AUTH <user> <pass> option can be used to authenticate the client and select"
          + " the RESP protocol version at the same time";
  static final String BAD_NAME =
      "ERR Client names cannot contain spaces, newlines or special characters.";

  private static final Reply PONG = Reply.simple("PONG");
  private static final byte[] DEFAULT_USER = "default".getBytes(StandardCharsets.US_ASCII);

  private static final org.slf4j.Logger log =
      org.slf4j.LoggerFactory.getLogger(ConnectionHandlers.class);

  private ConnectionHandlers() {}

  /** PING [message]: PONG, or the message as a bulk string. */
  public static Reply ping(Call call) {
    return call.argc() == 1 ? PONG : Reply.bulk(call.arg(1));
  }

  /** ECHO message. */
  public static Reply echo(Call call) {
    return Reply.bulk(call.arg(1));
  }

  /** QUIT: OK, then the connection closes once the reply is written. */
  public static Reply quit(Call call) {
    call.session().close();
    return Reply.OK;
  }

  /** SELECT index: Idem has one database, 0. */
  public static Reply select(Call call) {
    int db = Parse.intArg(call.arg(1));
    if (db != 0) {
      throw new CommandException(DB_OUT_OF_RANGE);
    }
    return Reply.OK;
  }

  /** AUTH [username] password. */
  public static Reply auth(Call call) {
    if (call.argc() > 3) {
      throw new CommandException(Errors.SYNTAX);
    }
    if (call.argc() == 2) {
      if (requirePass(call) == null) {
        throw new CommandException(NO_PASSWORD_SET);
      }
      authenticate(call, DEFAULT_USER, call.arg(1));
    } else {
      authenticate(call, call.arg(1), call.arg(2));
    }
    return Reply.OK;
  }

  /** HELLO [protover [AUTH username password] [SETNAME name]]: switches protocol, describes us. */
  public static Reply hello(Call call) {
    int protocol = 0;
    int i = 1;
    if (call.argc() >= 2) {
      long v = Parse.longArg(call.arg(i++), BAD_PROTO);
      if (v < 2 || v > 3) {
        throw new CommandException(NOPROTO);
      }
      protocol = (int) v;
    }
    byte @Nullable [] user = null;
    byte @Nullable [] pass = null;
    byte @Nullable [] name = null;
    for (; i < call.argc(); i++) {
      int more = call.argc() - 1 - i;
      if (call.is(i, "AUTH") && more >= 2) {
        user = call.arg(i + 1);
        pass = call.arg(i + 2);
        i += 2;
      } else if (call.is(i, "SETNAME") && more >= 1) {
        name = call.arg(i + 1);
        checkClientName(name);
        i++;
      } else {
        throw CommandException.err(
            "Syntax error in HELLO option '" + clip(Parse.text(call.arg(i))) + "'");
      }
    }
    Session session = call.session();
    if (user != null && pass != null) {
      authenticate(call, user, pass);
    }
    if (!session.authenticated()) {
      throw new CommandException(HELLO_NOAUTH);
    }
    if (name != null) {
      session.setName(name.length == 0 ? null : Parse.text(name));
    }
    if (protocol != 0) {
      session.setProtocol(protocol);
    }
    return Reply.map(
        List.of(
            Reply.bulk("server"),
            Reply.bulk("idem"),
            Reply.bulk("version"),
            Reply.bulk(REDIS_VERSION),
            Reply.bulk("proto"),
            Reply.integer(session.protocol()),
            Reply.bulk("id"),
            Reply.integer(session.id()),
            Reply.bulk("mode"),
            Reply.bulk("standalone"),
            Reply.bulk("role"),
            Reply.bulk("master"),
            Reply.bulk("modules"),
            Reply.EMPTY_ARRAY));
  }

  /**
   * Checks the pair against the one user Idem has, "default", whose password is requirepass (any
   * password when none is set, as Redis's nopass user). Success marks the session authenticated;
   * failure leaves it as it was.
   */
  static void authenticate(Call call, byte[] user, byte[] pass) {
    byte[] required = requirePass(call);
    boolean ok =
        MessageDigest.isEqual(user, DEFAULT_USER)
            && (required == null || MessageDigest.isEqual(pass, required));
    if (!ok) {
      log.warn(
          "AUTH failed for client id={} addr={}", call.session().id(), call.session().address());
      throw new CommandException(WRONGPASS);
    }
    call.session().setAuthenticated(true);
  }

  private static byte @Nullable [] requirePass(Call call) {
    String p = call.server().config().get("requirepass");
    return p.isEmpty() ? null : p.getBytes(StandardCharsets.UTF_8);
  }

  /** A client name is printable ASCII without spaces, or empty (which removes the name). */
  static void checkClientName(byte[] name) {
    if (!isPrintableWord(name)) {
      throw new CommandException(BAD_NAME);
    }
  }

  /** Redis's rule for CLIENT LIST fields: bytes from '!' to '~' only, so lines split on spaces. */
  static boolean isPrintableWord(byte[] b) {
    for (byte c : b) {
      if (c < '!' || c > '~') {
        return false;
      }
    }
    return true;
  }

  /** Keeps an echoed client string to Redis's 128 characters and one line. */
  static String clip(String s) {
    StringBuilder b = new StringBuilder();
    int n = Math.min(s.length(), 128);
    for (int i = 0; i < n; i++) {
      char c = s.charAt(i);
      b.append(c < ' ' ? ' ' : c);
    }
    return b.toString();
  }
}
