package io.idem.server.commands.generic;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Config;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.dispatch.ServerContext;
import io.idem.server.dispatch.Stats;
import io.idem.server.reply.Reply;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** CONFIG's subcommands, SAVE, BGSAVE, LASTSAVE and SHUTDOWN. */
public final class ServerAdmin {

  static final String SAVE_IN_PROGRESS = "ERR Background save already in progress";
  static final String SHUTDOWN_FAILED = "ERR Errors trying to SHUTDOWN. Check logs.";
  static final String NO_SHUTDOWN = "ERR No shutdown in progress.";
  private static final Reply BGSAVE_STARTED = Reply.simple("Background saving started");

  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(ServerAdmin.class);

  private ServerAdmin() {}

  /** CONFIG GET pattern [pattern ...]: name-value pairs (a map in RESP3), each name once. */
  public static Reply configGet(Call call) {
    Config config = call.server().config();
    Map<String, String> found = new LinkedHashMap<>();
    for (int i = 2; i < call.argc(); i++) {
      String p = Parse.text(call.arg(i));
      if (p.indexOf('*') < 0 && p.indexOf('?') < 0 && p.indexOf('[') < 0) {
        Config.Setting s = config.setting(p);
        if (s != null) {
          found.putIfAbsent(s.name(), config.get(s.name()));
        }
      } else {
        for (String name : config.matching(p)) {
          found.putIfAbsent(name, config.get(name));
        }
      }
    }
    List<Reply> out = new ArrayList<>();
    found.forEach(
        (k, v) -> {
          out.add(Reply.bulk(k));
          out.add(Reply.bulk(v));
        });
    return Reply.map(out);
  }

  /**
   * CONFIG SET name value [name value ...]: all or nothing. Every name and every value is checked
   * before the first is set; if applying one fails, the ones already set get their old values back.
   */
  public static Reply configSet(Call call) {
    if ((call.argc() & 1) == 1) {
      throw new CommandException(Errors.SYNTAX);
    }
    Config config = call.server().config();
    List<Config.Setting> settings = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = 2; i < call.argc(); i += 2) {
      String given = Parse.text(call.arg(i));
      Config.Setting s = config.setting(given);
      if (s == null) {
        throw CommandException.err(
            "Unknown option or number of arguments for CONFIG SET - '"
                + ConnectionHandlers.clip(given)
                + "'");
      }
      if (!s.mutable()) {
        throw setFailed(given, "can't set immutable config");
      }
      if (s.name().equals("bf-layout") && call.server().clusterLog() != null) {
        // The layout decides what every filter made from a record is: changed on one node, its
        // replicas would build other filters from the same log.
        throw setFailed(
            given,
            "every node of a cluster with a log must make the same filters; set it at start");
      }
      if (settings.contains(s)) {
        throw setFailed(given, "duplicate parameter");
      }
      settings.add(s);
      values.add(Parse.text(call.arg(i + 1)));
    }
    for (int i = 0; i < settings.size(); i++) {
      check(settings.get(i), values.get(i));
    }
    List<String> old = new ArrayList<>();
    for (Config.Setting s : settings) {
      old.add(config.get(s.name()));
    }
    for (int i = 0; i < settings.size(); i++) {
      try {
        config.set(settings.get(i).name(), values.get(i));
      } catch (RuntimeException e) {
        // A listener refused the value (the setting itself is already checked): undo it all.
        for (int j = i; j >= 0; j--) {
          try {
            config.set(settings.get(j).name(), old.get(j));
          } catch (RuntimeException again) {
            e.addSuppressed(again); // the old value was accepted once; keep restoring the rest
          }
        }
        throw setFailed(settings.get(i).name(), String.valueOf(e.getMessage()));
      }
    }
    for (int i = 0; i < settings.size(); i++) {
      String name = settings.get(i).name();
      log.info(
          "CONFIG SET {} {} (was {}) by client id={} addr={}",
          name,
          shown(name, config.get(name)),
          shown(name, old.get(i)),
          call.session().id(),
          call.session().address());
    }
    return Reply.OK;
  }

  /** A setting's value as the log shows it: never a password. */
  private static String shown(String name, String value) {
    return name.equals("requirepass") ? (value.isEmpty() ? "(none)" : "(hidden)") : value;
  }

  /** Checks a value on a scratch copy of the setting, so nothing is set and no listener runs. */
  private static void check(Config.Setting s, String value) {
    Config scratch = new Config();
    scratch.define(s);
    try {
      scratch.set(s.name(), value);
    } catch (IllegalArgumentException e) {
      throw setFailed(s.name(), e.getMessage());
    }
  }

  private static CommandException setFailed(String name, String why) {
    return CommandException.err(
        "CONFIG SET failed (possibly related to argument '"
            + ConnectionHandlers.clip(name)
            + "') - "
            + ConnectionHandlers.clip(why));
  }

  /** CONFIG RESETSTAT: zeroes what INFO stats and commandstats count. */
  public static Reply resetStat(Call call) {
    Stats st = call.server().stats();
    st.reset();
    st.commandsProcessed.reset();
    st.connectionsReceived.reset();
    st.rejectedConnections.reset();
    call.engine().resetStats();
    st.errorReplies.reset();
    st.netInputBytes.reset();
    st.netOutputBytes.reset();
    return Reply.OK;
  }

  /** SAVE: a snapshot of every resident value now, then OK. */
  public static Reply save(Call call) {
    ServerContext server = call.server();
    if (server.saveInProgress()) {
      throw new CommandException(SAVE_IN_PROGRESS);
    }
    try {
      server.save();
    } catch (UncheckedIOException e) {
      throw CommandException.err("snapshot failed: " + ConnectionHandlers.clip(e.getMessage()));
    }
    return Reply.OK;
  }

  /** BGSAVE [SCHEDULE]: starts a snapshot in the background. */
  public static Reply bgSave(Call call) {
    if (call.argc() > 2 || (call.argc() == 2 && !call.is(1, "SCHEDULE"))) {
      throw new CommandException(Errors.SYNTAX);
    }
    // SCHEDULE waits for another background job in Redis; Idem has no other, so it starts now.
    if (!call.server().saveInBackground()) {
      throw new CommandException(SAVE_IN_PROGRESS);
    }
    return BGSAVE_STARTED;
  }

  /** What a checkpoint may be named: a directory name, and nothing that climbs out of one. */
  private static final java.util.regex.Pattern CHECKPOINT_NAME =
      java.util.regex.Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}");

  /**
   * CHECKPOINT [name]: a RocksDB checkpoint of the store in the data directory's {@code
   * checkpoints/name} (by default the UTC time), replied as its absolute path. It is made off the
   * event loop: RocksDB flushes its memtables first.
   */
  public static Reply checkpoint(Call call) {
    String name =
        call.argc() == 2
            ? new String(call.arg(1), java.nio.charset.StandardCharsets.UTF_8)
            : "checkpoint-"
                + java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS")
                    .withZone(java.time.ZoneOffset.UTC)
                    .format(java.time.Instant.now());
    if (!CHECKPOINT_NAME.matcher(name).matches()) {
      throw CommandException.err(
          "a checkpoint's name is 1 to 64 letters, digits, '.', '_' or '-', and does not start"
              + " with '.'");
    }
    ServerContext server = call.server();
    java.util.concurrent.CompletableFuture<Reply> reply =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return Reply.bulk(server.checkpoint(name).toString());
              } catch (java.nio.file.FileAlreadyExistsException e) {
                return Reply.err("the checkpoint " + name + " exists");
              } catch (java.io.IOException | RuntimeException e) {
                return Reply.err("checkpoint failed: " + ConnectionHandlers.clip(e.getMessage()));
              }
            },
            r -> Thread.ofVirtual().name("idem-checkpoint").start(r));
    return new Reply.Deferred(reply);
  }

  /** LASTSAVE: seconds since the epoch of the last completed snapshot. */
  public static Reply lastSave(Call call) {
    return Reply.integer(call.server().lastSaveSeconds());
  }

  /**
   * SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]. As in Redis, success has no reply: the
   * connection closes as the server stops (replies queued before it are still written). With SAVE
   * it first takes a snapshot and, unless FORCE, stays up if that fails. NOW and FORCE are
   * accepted: Idem never waits for replicas.
   */
  public static Reply shutdown(Call call) {
    boolean nosave = false;
    boolean save = false;
    boolean force = false;
    boolean other = false;
    boolean abort = false;
    for (int i = 1; i < call.argc(); i++) {
      if (call.is(i, "NOSAVE")) {
        nosave = true;
      } else if (call.is(i, "SAVE")) {
        save = true;
      } else if (call.is(i, "NOW")) {
        other = true;
      } else if (call.is(i, "FORCE")) {
        force = true;
      } else if (call.is(i, "ABORT")) {
        abort = true;
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    if ((abort && (nosave || save || force || other)) || (nosave && save)) {
      throw new CommandException(Errors.SYNTAX);
    }
    if (abort) {
      // An Idem shutdown starts at once and is never pending, so there is nothing to abort.
      throw new CommandException(NO_SHUTDOWN);
    }
    ServerContext server = call.server();
    if (save) {
      try {
        server.save();
      } catch (UncheckedIOException e) {
        if (!force) {
          throw new CommandException(SHUTDOWN_FAILED);
        }
      }
    }
    server.shutdown();
    return Reply.NONE;
  }
}
