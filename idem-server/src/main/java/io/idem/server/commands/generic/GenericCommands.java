package io.idem.server.commands.generic;

import static io.idem.server.dispatch.CommandSpec.Flag.ADMIN;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.LOADING;
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
        command("del", -2, doc("key...", Keyspace::del))
            .flags(WRITE)
            .keys(1, -1, 1)
            .doc("Deletes keys; returns how many existed.", "O(N) where N is the number of keys")
            .build(),
        command("unlink", -2, doc("key...", Keyspace::del))
            .flags(WRITE, FAST)
            .keys(1, -1, 1)
            .doc(
                "Deletes keys, as DEL does; returns how many existed.",
                "O(N) where N is the number of keys")
            .build(),
        command("exists", -2, doc("key...", Keyspace::exists))
            .flags(READONLY, FAST)
            .keys(1, -1, 1)
            .doc(
                "Returns how many of the keys exist, counting a repeated key each time.",
                "O(N) where N is the number of keys")
            .build(),
        command("type", 2, doc("key", Keyspace::type))
            .flags(READONLY, FAST)
            .key()
            .doc("Returns the type of the key's value, or none.", "O(1)")
            .build(),
        command("rename", 3, doc("key newkey", Keyspace::rename))
            .flags(WRITE)
            .keys(1, 2, 1)
            .doc("Renames a key, replacing newkey if it exists.", "O(1)")
            .build(),
        command("renamenx", 3, doc("key newkey", Keyspace::renameNx))
            .flags(WRITE, FAST)
            .keys(1, 2, 1)
            .doc("Renames a key only if newkey does not exist.", "O(1)")
            .build(),
        command(
                "expire",
                -3,
                doc("key seconds:integer" + EXPIRE_ARGS, Keyspace.expire("expire", true, false)))
            .flags(WRITE, FAST)
            .key()
            .doc("Sets a key's time to live in seconds.", "O(1)")
            .build(),
        command(
                "pexpire",
                -3,
                doc(
                    "key milliseconds:integer" + EXPIRE_ARGS,
                    Keyspace.expire("pexpire", false, false)))
            .flags(WRITE, FAST)
            .key()
            .doc("Sets a key's time to live in milliseconds.", "O(1)")
            .build(),
        command(
                "expireat",
                -3,
                doc(
                    "key unix-time-seconds:unix-time" + EXPIRE_ARGS,
                    Keyspace.expire("expireat", true, true)))
            .flags(WRITE, FAST)
            .key()
            .doc("Sets a key's expiry to a Unix time in seconds.", "O(1)")
            .build(),
        command(
                "pexpireat",
                -3,
                doc(
                    "key unix-time-milliseconds:unix-time" + EXPIRE_ARGS,
                    Keyspace.expire("pexpireat", false, true)))
            .flags(WRITE, FAST)
            .key()
            .doc("Sets a key's expiry to a Unix time in milliseconds.", "O(1)")
            .build(),
        command("ttl", 2, doc("key", Keyspace.ttl(true, false)))
            .flags(READONLY, FAST)
            .key()
            .doc("Returns a key's time to live in seconds: -1 if none, -2 if no key.", "O(1)")
            .build(),
        command("pttl", 2, doc("key", Keyspace.ttl(false, false)))
            .flags(READONLY, FAST)
            .key()
            .doc("Returns a key's time to live in milliseconds: -1 if none, -2 if no key.", "O(1)")
            .build(),
        command("expiretime", 2, doc("key", Keyspace.ttl(true, true)))
            .flags(READONLY, FAST)
            .key()
            .doc(
                "Returns a key's expiry as a Unix time in seconds: -1 if none, -2 if no key.",
                "O(1)")
            .build(),
        command("pexpiretime", 2, doc("key", Keyspace.ttl(false, true)))
            .flags(READONLY, FAST)
            .key()
            .doc(
                "Returns a key's expiry as a Unix time in milliseconds: -1 if none, -2 if no key.",
                "O(1)")
            .build(),
        command("persist", 2, doc("key", Keyspace::persist))
            .flags(WRITE, FAST)
            .key()
            .doc("Removes a key's expiry.", "O(1)")
            .build(),
        command(
                "scan",
                -2,
                doc(
                    "cursor:integer [MATCH pattern] [COUNT count:integer] [TYPE type]",
                    Keyspace::scan))
            .flags(READONLY)
            .doc(
                "Iterates over the keys from a cursor; a key present for the whole iteration is"
                    + " returned at least once.",
                "O(1) for every call. O(N) for a complete iteration, where N is the number of"
                    + " keys.")
            .build(),
        command("keys", 2, doc("pattern", Keyspace::keys))
            .flags(READONLY)
            .doc(
                "Returns every key matching the glob pattern.",
                "O(N) where N is the number of keys")
            .build(),
        command("dbsize", 1, Keyspace::dbSize)
            .flags(READONLY, FAST)
            .group("server")
            .doc("Returns the number of keys.", "O(1)")
            .build(),
        command("flushdb", -1, doc("[ASYNC | SYNC]", Keyspace::flush))
            .flags(WRITE)
            .group("server")
            .doc("Removes every key.", "O(N) where N is the number of keys")
            .build(),
        command("flushall", -1, doc("[ASYNC | SYNC]", Keyspace::flush))
            .flags(WRITE)
            .group("server")
            .doc("Removes every key (Idem has one database).", "O(N) where N is the number of keys")
            .build(),
        command("module", -2, MODULE)
            .group("server")
            .doc("A container for module commands.", "Depends on subcommand.")
            .build(),
        command("memory", -2, MEMORY)
            .group("server")
            .doc("A container for memory commands.", "Depends on subcommand.")
            .build(),
        // ---- server
        command("info", -1, doc("[section...]", Info::info))
            .flags(LOADING, STALE)
            .group("server")
            .doc("Returns information and statistics about the server.", "O(1)")
            .build(),
        command("config", -2, CONFIG)
            .group("server")
            .doc("A container for configuration commands.", "Depends on subcommand.")
            .build(),
        command("save", 1, ServerAdmin::save)
            .flags(ADMIN)
            .group("server")
            .doc(
                "Takes a snapshot of every resident value now and truncates the log behind it.",
                "O(N) where N is the number of resident values")
            .build(),
        command("bgsave", -1, doc("[SCHEDULE]", ServerAdmin::bgSave))
            .flags(ADMIN)
            .group("server")
            .doc("Starts a snapshot in the background.", "O(1)")
            .build(),
        command("lastsave", 1, ServerAdmin::lastSave)
            .flags(LOADING, STALE, FAST)
            .group("server")
            .doc("Returns the Unix time in seconds of the last completed snapshot.", "O(1)")
            .build(),
        command("shutdown", -1, doc("[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]", ServerAdmin::shutdown))
            .flags(ADMIN, LOADING, STALE)
            .group("server")
            .doc(
                "Stops the server; with SAVE, after a snapshot.",
                "O(N) when saving, where N is the number of resident values, else O(1)")
            .build());
  }
}
