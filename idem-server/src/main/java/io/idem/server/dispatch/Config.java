package io.idem.server.dispatch;

import io.idem.server.engine.Glob;
import io.idem.server.store.RocksStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The server's settings, by Redis's names where Redis has one. Every value is validated when it is
 * set (from the file, the command line or CONFIG SET), so the rest of the server reads only valid
 * values. Values are kept as the normalized text CONFIG GET prints.
 */
public final class Config {

  /** How a setting's text is parsed and checked. */
  public enum Kind {
    INT,
    /** A byte count with optional unit: 100, 1kb, 64mb, 2gb (Redis's units, 1024-based). */
    BYTES,
    /** Redis's client-output-buffer-limit: groups of class, hard, soft, seconds. */
    OUTPUT_LIMIT,
    BOOL,
    ENUM,
    STRING
  }

  /**
   * One setting.
   *
   * @param mutable whether CONFIG SET may change it while running
   * @param choices the values of an ENUM
   */
  public record Setting(
      String name,
      Kind kind,
      String defaultValue,
      boolean mutable,
      long min,
      long max,
      List<String> choices,
      String help) {}

  private final Map<String, Setting> settings = new LinkedHashMap<>();
  private final Map<String, String> values = new ConcurrentHashMap<>();
  private final Map<String, Consumer<String>> listeners = new ConcurrentHashMap<>();

  /** The server's settings at their defaults. */
  public static Config defaults() {
    Config c = new Config();
    c.define(str("bind", "127.0.0.1", false, "addresses to listen on, space-separated"));
    c.define(integer("port", 6379, 0, 65535, false, "TCP port; 0 picks a free one"));
    c.define(str("dir", "./idem-data", false, "the RocksDB directory"));
    c.define(str("requirepass", "", true, "password for AUTH; empty means none"));
    c.define(
        choice(
            "protected-mode",
            "yes",
            List.of("yes", "no"),
            true,
            "with no requirepass, serve loopback clients only"));
    c.define(integer("maxclients", 10000, 1, 1_000_000, true, "connections accepted at once"));
    c.define(integer("timeout", 0, 0, Integer.MAX_VALUE, true, "idle seconds before close; 0 off"));
    c.define(
        integer(
            "slowlog-log-slower-than",
            10_000,
            -1,
            Long.MAX_VALUE,
            true,
            "microseconds a command must take for SLOWLOG to keep it; -1 none, 0 every one"));
    c.define(
        integer("slowlog-max-len", 128, 0, 100_000, true, "entries SLOWLOG keeps, the newest"));
    c.define(
        integer(
            "latency-monitor-threshold",
            0,
            0,
            Long.MAX_VALUE,
            true,
            "milliseconds an event must take for LATENCY to sample it; 0 off"));
    c.define(
        bytes(
            "maxmemory",
            defaultMaxMemory(),
            0,
            Long.MAX_VALUE,
            true,
            "memory for values before writes that grow it are refused; 0 off"));
    c.define(
        bytes(
            "maxmemory-clients",
            defaultMaxMemoryClients(),
            0,
            Long.MAX_VALUE,
            true,
            "all clients' query and output buffers together before the largest is closed; 0 off"));
    c.define(
        new Setting(
            "client-output-buffer-limit",
            Kind.OUTPUT_LIMIT,
            OutputBufferLimit.DEFAULT,
            true,
            0,
            0,
            List.of(),
            "unsent reply bytes that close a client: normal <hard> <soft> <soft seconds>"));
    c.define(
        choice(
            "appendfsync",
            "everysec",
            List.of("always", "everysec", "no"),
            true,
            "when the write-ahead log is fsynced"));
    c.define(
        bytes("proto-max-bulk-len", 512L << 20, 1 << 20, Integer.MAX_VALUE, true, "bulk limit"));
    c.define(
        bytes(
            "client-query-buffer-limit",
            1L << 30,
            1 << 20,
            Integer.MAX_VALUE,
            true,
            "bytes one connection may have buffered unparsed"));
    c.define(
        integer(
            "max-multibulk-len", 1 << 20, 1, Integer.MAX_VALUE, true, "arguments in one command"));
    c.define(bytes("max-inline-len", 64 << 10, 1 << 10, 1 << 30, true, "inline command bytes"));
    c.define(
        integer(
            "snapshot-interval",
            60,
            1,
            86_400,
            true,
            "seconds between background snapshots of changed values"));
    c.define(
        bytes(
            "snapshot-log-bytes",
            RocksStore.LOG_BYTES_BEFORE_FLUSH,
            1 << 20,
            Long.MAX_VALUE,
            true,
            "log bytes that start a snapshot before the interval ends"));
    c.define(
        integer(
            "snapshot-log-percentage",
            100,
            0,
            1_000_000,
            true,
            "and the log bytes, as a percentage of the last snapshot's, that must come first"));
    c.define(integer("tls-port", 0, 0, 65535, false, "TLS port; 0 off"));
    c.define(str("tls-cert-file", "", false, "PEM certificate chain for TLS"));
    c.define(str("tls-key-file", "", false, "PEM private key for TLS"));
    c.define(integer("metrics-port", 0, 0, 65535, false, "Prometheus HTTP port; 0 off"));
    c.define(str("metrics-bind", "127.0.0.1", false, "address of the Prometheus endpoint"));
    c.define(
        choice(
            "console",
            "no",
            List.of("yes", "no"),
            false,
            "serve the web console under /console on metrics-port (9121 if that is 0)"));
    c.define(
        choice(
            "loglevel",
            "notice",
            List.of("debug", "verbose", "notice", "warning"),
            true,
            "log verbosity"));
    c.define(integer("databases", 1, 1, 1, false, "Idem has one database, 0"));
    c.define(
        choice(
            "cluster-enabled",
            "no",
            List.of("yes", "no"),
            false,
            "serve a share of Redis Cluster's slots, as the cluster settings say"));
    c.define(str("cluster-node", "", false, "this node's name among cluster-nodes"));
    c.define(
        str(
            "cluster-nodes",
            "",
            false,
            "every node of the cluster, name=host:port separated by spaces, the same on each"));
    c.define(
        integer(
            "cluster-partitions",
            16,
            1,
            16384,
            false,
            "the partitions the slots are split into, at least one a node"));
    c.define(
        str(
            "cluster-log",
            "",
            false,
            "Kafka bootstrap servers of the cluster's log; empty: each node keeps its slots alone"));
    c.define(str("cluster-topic", "idem", false, "the Kafka topic of the cluster's log"));
    c.define(
        integer(
            "cluster-replicas",
            1,
            1,
            16384,
            false,
            "the nodes that serve each slot and apply its records (with cluster-log)"));
    c.define(
        str(
            "load-checkpoint",
            "",
            false,
            "a checkpoint (CHECKPOINT's directory) to fill an empty data directory from at start"));
    c.define(
        integer(
            "test-clock-offset",
            0,
            -365L * 86_400_000,
            365L * 86_400_000,
            false,
            "for tests only: milliseconds added to this server's clock (a node whose clock is"
                + " ahead or behind)"));
    c.define(
        integer(
            "cluster-write-timeout",
            30000,
            1000,
            600_000,
            false,
            "milliseconds a write may wait for Kafka to take it before its client gets an error"
                + " (with cluster-log)"));
    c.define(
        integer(
            "cluster-node-timeout",
            15000,
            500,
            3_600_000,
            false,
            "milliseconds a node may be silent before the others count it as failed (with"
                + " cluster-log); within the brokers' group session timeout bounds"));
    c.define(
        choice(
            "bf-layout",
            "classic",
            List.of("classic", "blocked"),
            true,
            "layout of new Bloom filters: classic is RedisBloom's (smallest, dumps RedisBloom"
                + " loads); blocked reads one cache line an item (faster batched lookups, larger)"));
    // Redis's persistence settings, read by tools such as redis-benchmark: every change is in the
    // write-ahead log (appendonly yes), and snapshots follow snapshot-interval, not save points.
    c.define(
        choice("appendonly", "yes", List.of("yes"), false, "always yes: the log is RocksDB's"));
    c.define(str("save", "", false, "unused: see snapshot-interval"));
    return c;
  }

  /**
   * maxmemory's default: three quarters of the heap, in whole MiB. The rest is the room the server
   * needs beside what maxmemory counts (rows not yet written, replies waiting for the log, snapshot
   * images) and the collector's headroom.
   */
  public static long defaultMaxMemory() {
    return Runtime.getRuntime().maxMemory() / 4 * 3 & -(1L << 20);
  }

  /**
   * maxmemory-clients' default: a quarter of the heap, in whole MiB. Redis leaves it off, but here
   * the buffers share the heap with the values, and a heap that fills up ends the process.
   */
  public static long defaultMaxMemoryClients() {
    return Runtime.getRuntime().maxMemory() / 4 & -(1L << 20);
  }

  public static Setting str(String name, String def, boolean mutable, String help) {
    return new Setting(name, Kind.STRING, def, mutable, 0, 0, List.of(), help);
  }

  public static Setting integer(
      String name, long def, long min, long max, boolean mutable, String help) {
    return new Setting(name, Kind.INT, Long.toString(def), mutable, min, max, List.of(), help);
  }

  public static Setting bytes(
      String name, long def, long min, long max, boolean mutable, String help) {
    return new Setting(name, Kind.BYTES, Long.toString(def), mutable, min, max, List.of(), help);
  }

  public static Setting choice(
      String name, String def, List<String> choices, boolean mutable, String help) {
    return new Setting(name, Kind.ENUM, def, mutable, 0, 0, List.copyOf(choices), help);
  }

  public void define(Setting s) {
    if (settings.putIfAbsent(s.name(), s) != null) {
      throw new IllegalStateException("setting defined twice: " + s.name());
    }
    values.put(s.name(), normalize(s, s.defaultValue()));
  }

  public @Nullable Setting setting(String name) {
    return settings.get(name.toLowerCase(Locale.ROOT));
  }

  public List<Setting> settings() {
    return List.copyOf(settings.values());
  }

  /**
   * Sets a value after checking it.
   *
   * @throws IllegalArgumentException with a one-line reason if the name is unknown or the value
   *     invalid; nothing changes then
   */
  public void set(String name, String value) {
    Setting s = setting(name);
    if (s == null) {
      throw new IllegalArgumentException("unknown setting '" + name + "'");
    }
    String v = normalize(s, value);
    values.put(s.name(), v);
    Consumer<String> l = listeners.get(s.name());
    if (l != null) {
      l.accept(v);
    }
  }

  /** Runs {@code listener} with the new text each time the setting changes. */
  public void onChange(String name, Consumer<String> listener) {
    listeners.merge(name, listener, Consumer::andThen);
  }

  public String get(String name) {
    String v = values.get(name);
    if (v == null) {
      throw new IllegalArgumentException("unknown setting '" + name + "'");
    }
    return v;
  }

  public long getLong(String name) {
    return Long.parseLong(get(name));
  }

  public int getInt(String name) {
    return Math.toIntExact(getLong(name));
  }

  public boolean getBool(String name) {
    return get(name).equals("yes");
  }

  /** Names matching a Redis glob pattern, in definition order. */
  public List<String> matching(String pattern) {
    List<String> out = new ArrayList<>();
    for (String name : settings.keySet()) {
      if (Glob.matches(pattern.toLowerCase(Locale.ROOT), name)) {
        out.add(name);
      }
    }
    return out;
  }

  private static String normalize(Setting s, String value) {
    String v = value.trim();
    return switch (s.kind()) {
      case STRING -> {
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
          throw new IllegalArgumentException(s.name() + " must be one line");
        }
        yield value;
      }
      case BOOL -> {
        String l = v.toLowerCase(Locale.ROOT);
        if (!l.equals("yes") && !l.equals("no")) {
          throw new IllegalArgumentException(s.name() + " must be yes or no, not '" + v + "'");
        }
        yield l;
      }
      case ENUM -> {
        String l = v.toLowerCase(Locale.ROOT);
        if (!s.choices().contains(l)) {
          throw new IllegalArgumentException(
              s.name() + " must be one of " + String.join(", ", s.choices()) + ", not '" + v + "'");
        }
        yield l;
      }
      case INT -> Long.toString(inRange(s, parseLong(s, v)));
      case BYTES -> Long.toString(inRange(s, parseBytes(s, v)));
      case OUTPUT_LIMIT -> OutputBufferLimit.normalize(v);
    };
  }

  private static long inRange(Setting s, long n) {
    if (n < s.min() || n > s.max()) {
      throw new IllegalArgumentException(
          s.name() + " must be between " + s.min() + " and " + s.max() + ", not " + n);
    }
    return n;
  }

  private static long parseLong(Setting s, String v) {
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(s.name() + " must be an integer, not '" + v + "'");
    }
  }

  /** Redis's memory units: b, k/kb, m/mb, g/gb (k = 1000, kb = 1024, as redis.conf says). */
  static long parseBytes(Setting s, String v) {
    String l = v.toLowerCase(Locale.ROOT);
    int i = 0;
    while (i < l.length() && Character.isDigit(l.charAt(i))) {
      i++;
    }
    if (i == 0 || i > 18) {
      throw new IllegalArgumentException(
          s.name() + " must be a byte count such as 64mb, not '" + v + "'");
    }
    long n = Long.parseLong(l.substring(0, i));
    long unit =
        switch (l.substring(i)) {
          case "", "b" -> 1;
          case "k" -> 1000;
          case "kb" -> 1024;
          case "m" -> 1000_000;
          case "mb" -> 1L << 20;
          case "g" -> 1000_000_000;
          case "gb" -> 1L << 30;
          default ->
              throw new IllegalArgumentException(
                  s.name() + " has an unknown unit in '" + v + "' (use b, kb, mb or gb)");
        };
    try {
      return Math.multiplyExact(n, unit);
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException(s.name() + " is too large: '" + v + "'");
    }
  }
}
