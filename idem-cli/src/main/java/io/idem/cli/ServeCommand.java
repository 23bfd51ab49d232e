package io.idem.cli;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code idem serve}: the Redis-protocol server on an embedded RocksDB. */
@Command(
    name = "serve",
    header = "Run the Idem server: the Redis protocol on an embedded RocksDB.",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Listens on 127.0.0.1:6379 by default and keeps its data under ./idem-data. Settings come"
          + " from the command line, then the configuration file, then the defaults; every one is"
          + " checked before the server starts. SIGTERM or SHUTDOWN stop it gracefully.",
      ""
    },
    footer = {
      "",
      "The configuration file has one setting per line, as redis.conf: `name value`; `#` starts a"
          + " comment. Every setting is listed below with its default (docs/commands/server.md).",
      "",
      "Examples:",
      "  idem serve",
      "  idem serve --port 7000 --dir /var/lib/idem --set appendfsync=always",
      "  idem serve --config idem.conf"
    })
final class ServeCommand implements Callable<Integer> {

  /** The largest configuration file read: settings are a few lines. */
  static final long MAX_CONFIG_BYTES = 1 << 20;

  PrintStream err = System.err;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "TCP port (default 6379; 0 picks one).")
  @Nullable String port;

  @Option(
      names = "--bind",
      paramLabel = "ADDRESS",
      description = "Address to listen on (default 127.0.0.1).")
  @Nullable String bind;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Data directory (default ./idem-data).")
  @Nullable String dir;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help, with every setting and its default, and exit.")
  boolean help;

  @Option(names = "--config", paramLabel = "FILE", description = "A configuration file.")
  @Nullable Path configFile;

  @Option(
      names = "--set",
      paramLabel = "NAME=VALUE",
      description = "Any setting, as in the configuration file; repeatable.")
  List<String> sets = new ArrayList<>();

  @Override
  public Integer call() {
    Config config = configure();
    IdemServer server;
    try {
      server = IdemServer.start(config);
    } catch (IdemServer.StartException e) {
      throw new CliException(1, e.getMessage());
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "idem-sigterm"));
    err.println(
        "idem: ready on "
            + endpoints(config.get("bind"), server.port())
            + " with data in "
            + Path.of(config.get("dir")).toAbsolutePath().normalize());
    if (config.getBool("console")) {
      err.println(
          "idem: console on http://"
              + hostForUrl(config.get("metrics-bind"))
              + ":"
              + server.metricsPort()
              + "/console/");
    }
    err.flush();
    try {
      server.awaitStop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  /** An address as a URL writes it: IPv6 in brackets, the wildcard as the loopback address. */
  private static String hostForUrl(String bind) {
    if (bind.equals("0.0.0.0") || bind.equals("::") || bind.equals("*")) {
      return "127.0.0.1";
    }
    return bind.contains(":") ? "[" + bind + "]" : bind;
  }

  /**
   * The help's list of settings, from the server's own definitions: name, default (as this JVM
   * computes it: maxmemory's depends on the heap), and what it does; * marks those CONFIG SET can
   * change while the server runs.
   */
  static String settingsHelp() {
    List<Config.Setting> all = Config.defaults().settings();
    int nameWidth = 0;
    for (Config.Setting s : all) {
      nameWidth = Math.max(nameWidth, s.name().length());
    }
    StringBuilder b = new StringBuilder();
    b.append(System.lineSeparator())
        .append("Settings and their defaults (* can change while running, by CONFIG SET):")
        .append(System.lineSeparator());
    for (Config.Setting s : all) {
      b.append("  ")
          .append(s.mutable() ? "* " : "  ")
          .append(s.name())
          .append(" ".repeat(nameWidth - s.name().length() + 2))
          .append(shown(s.defaultValue()))
          .append(System.lineSeparator())
          .append("        ")
          .append(s.help())
          .append(System.lineSeparator());
    }
    return b.toString();
  }

  private static String shown(String defaultValue) {
    return defaultValue.isEmpty() ? "\"\"" : defaultValue;
  }

  /** Each listening address with its port: {@code 127.0.0.1:6379, [::1]:6379}. */
  static String endpoints(String bind, int port) {
    List<String> out = new ArrayList<>();
    for (String address : bind.trim().split("\\s+")) {
      out.add((address.indexOf(':') >= 0 ? "[" + address + "]" : address) + ":" + port);
    }
    return String.join(", ", out);
  }

  /** Defaults, then the file, then the flags; the first bad value stops with one line. */
  Config configure() {
    Config config = Config.defaults();
    if (configFile != null) {
      readFile(config, configFile);
    }
    try {
      for (String s : sets) {
        int eq = s.indexOf('=');
        if (eq <= 0) {
          throw new CliException(2, "--set needs NAME=VALUE, not '" + s + "'");
        }
        config.set(s.substring(0, eq).trim(), s.substring(eq + 1));
      }
      if (port != null) {
        config.set("port", port);
      }
      if (bind != null) {
        config.set("bind", bind);
      }
      if (dir != null) {
        config.set("dir", dir);
      }
    } catch (IllegalArgumentException e) {
      throw new CliException(2, e.getMessage());
    }
    return config;
  }

  private static void readFile(Config config, Path file) {
    byte[] bytes;
    // Read at most one byte past the limit: the size on disk says nothing for a pipe or /dev/zero.
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes((int) MAX_CONFIG_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new CliException(2, "cannot read " + file + ": no such file");
    } catch (AccessDeniedException e) {
      throw new CliException(2, "cannot read " + file + ": permission denied");
    } catch (IOException e) {
      throw new CliException(2, "cannot read " + file + ": " + e.getMessage());
    }
    if (bytes.length > MAX_CONFIG_BYTES) {
      throw new CliException(2, file + " is larger than " + MAX_CONFIG_BYTES + " bytes");
    }
    CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder(); // reports bad bytes
    // Lines end at \n, as redis.conf's do; strip() drops the \r of a \r\n.
    for (int start = 0, end, number = 1; start < bytes.length; start = end + 1, number++) {
      end = start;
      while (end < bytes.length && bytes[end] != '\n') {
        end++;
      }
      String line;
      try {
        line = utf8.decode(ByteBuffer.wrap(bytes, start, end - start)).toString().strip();
      } catch (CharacterCodingException e) {
        throw new CliException(2, file + ":" + number + ": not UTF-8 text");
      }
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] parts = line.split("\\s+", 2);
      String value = parts.length == 2 ? unquote(parts[1].strip()) : "";
      try {
        config.set(parts[0], value);
      } catch (IllegalArgumentException e) {
        throw new CliException(2, file + ":" + number + ": " + e.getMessage());
      }
    }
  }

  private static String unquote(String v) {
    if (v.length() >= 2
        && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
      return v.substring(1, v.length() - 1);
    }
    return v;
  }
}
