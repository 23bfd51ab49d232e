package io.idem.server.commands.generic;

import static io.idem.server.dispatch.CommandSpec.Flag.ADMIN;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.LOADING;
import static io.idem.server.dispatch.CommandSpec.Flag.NO_MULTI;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.STALE;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;
import static io.idem.server.dispatch.Documented.doc;

import io.idem.server.dispatch.CommandSpec;
import io.idem.server.dispatch.Container;
import io.idem.server.dispatch.Container.Sub;
import java.util.List;
import java.util.Set;

/**
 * Redis's keyspace commands (DEL, EXPIRE, SCAN, ...) and server commands (INFO, CONFIG, SAVE, ...).
 * Arity and flags are Redis 7's: WRITE for every command that changes the keyspace, so its reply
 * waits for the write-ahead log.
 */
public final class GenericCommands {

  private GenericCommands() {}

  private static final String EXPIRE_ARGS = " [NX | XX | GT | LT]";

  static final Container MEMORY =
      new Container(
          "memory",
          null,
          List.of(
              new Sub(
                  "usage",
                  -3,
                  Set.of(READONLY),
                  2,
                  2,
                  1,
                  "key [SAMPLES count:integer]",
                  "Returns the bytes a key and its value take in memory, or nil.",
                  "O(1)",
                  Keyspace::memoryUsage)));

  static final Container DEBUG =
      new Container(
          "debug",
          null,
          List.of(
              Sub.of(
                  "digest",
                  2,
                  Set.of(READONLY, ADMIN),
                  "",
                  "Returns one hash of the whole keyspace: equal on two nodes that hold the same"
                      + " data.",
                  "O(N) where N is the keys and their sizes",
                  Keyspace::digest),
              new Sub(
                  "digest-value",
                  -3,
                  Set.of(READONLY, ADMIN),
                  2,
                  -1,
                  1,
                  "key [key ...]",
                  "Returns the hash of each key's type, expiry and content.",
                  "O(N) where N is the keys' sizes",
                  Keyspace::digestValue)));

  static final Container MODULE =
      new Container(
          "module",
          null,
          List.of(
              new Sub(
                  "list",
                  2,
                  Set.of(ADMIN, LOADING, STALE),
                  0,
                  0,
                  0,
                  "",
                  "Lists the modules: RedisBloom's bf, whose commands Idem has built in.",
                  "O(1)",
                  Modules::list)));

  static final Container CONFIG =
      new Container(
          "config",
          null,
          List.of(
              Sub.of(
                  "get",
                  -3,
                  Set.of(ADMIN, LOADING, STALE),
                  "parameter...",
                  "Returns the settings whose names match the glob patterns, with their values.",
                  "O(N) where N is the number of settings",
                  ServerAdmin::configGet),
              Sub.of(
                  "set",
                  -4,
                  Set.of(ADMIN, LOADING, STALE),
                  "(parameter value)...",
                  "Changes settings while running: all of them, or none if one is refused.",
                  "O(N) where N is the number of settings given",
                  ServerAdmin::configSet),
              Sub.of(
                  "resetstat",
                  2,
                  Set.of(ADMIN, LOADING, STALE),
                  "",
                  "Zeroes the statistics INFO reports.",
                  "O(1)",
                  ServerAdmin::resetStat)));

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        // ---- keyspace
        command("del", -2, doc("key...", Keyspace::del)).flags(WRITE).keys(1, -1, 1).build(),
        command("unlink", -2, doc("key...", Keyspace::del))
            .flags(WRITE, FAST)
            .keys(1, -1, 1)
            .build(),
        command("exists", -2, doc("key...", Keyspace::exists))
            .flags(READONLY, FAST)
            .keys(1, -1, 1)
            .build(),
        command("type", 2, doc("key", Keyspace::type)).flags(READONLY, FAST).key().build(),
        command("rename", 3, doc("key newkey", Keyspace::rename))
            .flags(WRITE)
            .keys(1, 2, 1)
            .build(),
        command("renamenx", 3, doc("key newkey", Keyspace::renameNx))
            .flags(WRITE, FAST)
            .keys(1, 2, 1)
            .build(),
        command(
                "expire",
                -3,
                doc("key seconds:integer" + EXPIRE_ARGS, Keyspace.expire("expire", true, false)))
            .flags(WRITE, FAST)
            .key()
            .build(),
        command(
                "pexpire",
                -3,
                doc(
                    "key milliseconds:integer" + EXPIRE_ARGS,
                    Keyspace.expire("pexpire", false, false)))
            .flags(WRITE, FAST)
            .key()
            .build(),
        command(
                "expireat",
                -3,
                doc(
                    "key unix-time-seconds:unix-time" + EXPIRE_ARGS,
                    Keyspace.expire("expireat", true, true)))
            .flags(WRITE, FAST)
            .key()
            .build(),
        command(
                "pexpireat",
                -3,
                doc(
                    "key unix-time-milliseconds:unix-time" + EXPIRE_ARGS,
                    Keyspace.expire("pexpireat", false, true)))
            .flags(WRITE, FAST)
            .key()
            .build(),
        command("ttl", 2, doc("key", Keyspace.ttl(true, false)))
            .flags(READONLY, FAST)
            .key()
            .build(),
        command("pttl", 2, doc("key", Keyspace.ttl(false, false)))
            .flags(READONLY, FAST)
            .key()
            .build(),
        command("expiretime", 2, doc("key", Keyspace.ttl(true, true)))
            .flags(READONLY, FAST)
            .key()
            .build(),
        command("pexpiretime", 2, doc("key", Keyspace.ttl(false, true)))
            .flags(READONLY, FAST)
            .key()
            .build(),
        command("persist", 2, doc("key", Keyspace::persist)).flags(WRITE, FAST).key().build(),
        command("expiredue", 2, doc("key", Keyspace::expireDue)).flags(WRITE, FAST).key().build(),
        command("windowdue", 2, doc("key", Keyspace::windowDue)).flags(WRITE).key().build(),
        command(
                "scan",
                -2,
                doc(
                    "cursor:integer [MATCH pattern] [COUNT count:integer] [TYPE type]",
                    Keyspace::scan))
            .flags(READONLY)
            .build(),
        command("keys", 2, doc("pattern", Keyspace::keys)).flags(READONLY).build(),
        command("dbsize", 1, Keyspace::dbSize).flags(READONLY, FAST).build(),
        command("flushdb", -1, doc("[ASYNC | SYNC]", Keyspace::flush)).flags(WRITE).build(),
        command("flushall", -1, doc("[ASYNC | SYNC]", Keyspace::flush)).flags(WRITE).build(),
        command("module", -2, MODULE).build(),
        command("debug", -2, DEBUG).build(),
        command("memory", -2, MEMORY).build(),
        // ---- server
        command("info", -1, doc("[section...]", Info::info)).flags(LOADING, STALE).build(),
        command("config", -2, CONFIG).build(),
        command("slowlog", -2, SlowLogCommands.SLOWLOG).build(),
        command("latency", -2, LatencyCommands.LATENCY).build(),
        command("save", 1, ServerAdmin::save).flags(ADMIN).build(),
        command("bgsave", -1, doc("[SCHEDULE]", ServerAdmin::bgSave)).flags(ADMIN).build(),
        command("checkpoint", -1, doc("[name]", ServerAdmin::checkpoint))
            .atMost(2)
            .flags(ADMIN, NO_MULTI)
            .build(),
        command("lastsave", 1, ServerAdmin::lastSave).flags(LOADING, STALE, FAST).build(),
        command("shutdown", -1, doc("[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]", ServerAdmin::shutdown))
            .flags(ADMIN, LOADING, STALE)
            .build());
  }
}
