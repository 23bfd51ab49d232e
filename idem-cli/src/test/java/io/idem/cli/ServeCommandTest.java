package io.idem.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.idem.server.dispatch.Config;
import io.idem.server.net.IdemServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ServeCommandTest {

  @TempDir Path tmp;

  /** Parses {@code idem serve args...} as Main does and returns the settings, starting nothing. */
  private static Config configure(String... args) {
    ServeCommand serve = new ServeCommand();
    Main.newCommandLine(serve, new SizeCommand(), new UniqCommand()).parseArgs(serve(args));
    return serve.configure();
  }

  private static String[] serve(String... args) {
    String[] full = new String[args.length + 1];
    full[0] = "serve";
    System.arraycopy(args, 0, full, 1, args.length);
    return full;
  }

  /**
   * Runs {@code idem serve args...} in-process with a data directory that cannot be created, so a
   * setting wrongly accepted ends in a start failure (exit 1), never in a running server.
   */
  private Run serveWithBadSettings(String... args) throws IOException {
    List<String> full = new ArrayList<>(List.of(serve(args)));
    full.addAll(List.of("--dir", underAFile().toString()));
    return Run.main("", full.toArray(String[]::new));
  }

  /** A data directory that cannot be created: its parent is a regular file (root or not). */
  private Path underAFile() throws IOException {
    Path file = tmp.resolve("file");
    if (!Files.exists(file)) {
      Files.writeString(file, "not a directory");
    }
    return file.resolve("data");
  }

  private Path file(String name, String text) throws IOException {
    return Files.writeString(tmp.resolve(name), text);
  }

  // ---- settings: flags over file over defaults

  @Test
  void configure_nothingGiven_usesTheDefaults() {
    Config config = configure();

    assertThat(config.get("bind")).isEqualTo("127.0.0.1");
    assertThat(config.get("port")).isEqualTo("6379");
    assertThat(config.get("dir")).isEqualTo("./idem-data");
    assertThat(config.get("requirepass")).isEmpty();
    assertThat(config.get("appendfsync")).isEqualTo("everysec");
    assertThat(config.get("maxclients")).isEqualTo("10000");
  }

  @Test
  void configure_fileOverDefaults_flagsOverFile() throws IOException {
    Path conf =
        file(
            "idem.conf",
            """
            # settings for the test
            port 7000
            dir /srv/from-file

              requirepass "two words"
            APPENDFSYNC always
            maxclients 5
            maxmemory 64mb
            """);

    Config config =
        configure("--config", conf.toString(), "--port", "7001", "--set", "maxclients=6");

    assertThat(config.get("port")).isEqualTo("7001"); // flag
    assertThat(config.get("maxclients")).isEqualTo("6"); // --set
    assertThat(config.get("dir")).isEqualTo("/srv/from-file"); // file
    assertThat(config.get("requirepass")).isEqualTo("two words"); // file, unquoted
    assertThat(config.get("appendfsync")).isEqualTo("always"); // file, name in any case
    assertThat(config.get("maxmemory")).isEqualTo(Long.toString(64L << 20)); // file, normalized
    assertThat(config.get("bind")).isEqualTo("127.0.0.1"); // default
  }

  @Test
  void configure_namedFlagsOverSet() {
    Config config =
        configure(
            "--set=port=7000",
            "--port=7001",
            "--set=dir=/a",
            "--dir=/b",
            "--set=bind=::1",
            "--bind=127.0.0.3");

    assertThat(config.get("port")).isEqualTo("7001");
    assertThat(config.get("dir")).isEqualTo("/b");
    assertThat(config.get("bind")).isEqualTo("127.0.0.3");
  }

  @Test
  void configure_repeatedSetting_lastWins() throws IOException {
    Path conf = file("idem.conf", "port 7000\nport 7001\n");

    assertThat(configure("--config", conf.toString()).get("port")).isEqualTo("7001");
    assertThat(configure("--set", "port=1", "--set", "port=2").get("port")).isEqualTo("2");
  }

  @Test
  void configure_crlfLinesAndNoFinalNewline_readAsLines() throws IOException {
    Path conf = file("idem.conf", "# windows\r\nport 7000\r\nbind 127.0.0.2 ::1");

    Config config = configure("--config", conf.toString());

    assertThat(config.get("port")).isEqualTo("7000");
    assertThat(config.get("bind")).isEqualTo("127.0.0.2 ::1");
  }

  @Test
  void configure_fileOfExactlyTheLimit_isRead() throws IOException {
    String last = "port 7000\n";
    String padding = "#".repeat((int) ServeCommand.MAX_CONFIG_BYTES - last.length() - 1) + "\n";
    Path conf = file("idem.conf", padding + last);
    assertThat(Files.size(conf)).isEqualTo(ServeCommand.MAX_CONFIG_BYTES);

    assertThat(configure("--config", conf.toString()).get("port")).isEqualTo("7000");
  }

  // ---- bad settings: one line, exit code 2, the file and line named

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          nope 1                | unknown setting 'nope'
          port seven            | port must be an integer, not 'seven'
          port 70000            | port must be between 0 and 65535, not 70000
          port -1               | port must be between 0 and 65535, not -1
          port                  | port must be an integer, not ''
          maxclients 0          | maxclients must be between 1 and 1000000, not 0
          maxmemory 12xb        | maxmemory has an unknown unit in '12xb' (use b, kb, mb or gb)
          maxmemory 99999999999gb | maxmemory is too large: '99999999999gb'
          appendfsync sometimes | appendfsync must be one of always, everysec, no, not 'sometimes'
          """)
  void serve_badSettingInFile_exits2NamingFileAndLine(String line, String message)
      throws IOException {
    Path conf =
        file("idem.conf", "# before the bad line: a comment, a good one\nport 7000\n" + line);

    Run run = serveWithBadSettings("--config", conf.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: " + conf + ":3: " + message + "\n");
  }

  @Test
  void serve_badSettingInFile_reportedBeforeBadFlags() throws IOException {
    Path conf = file("idem.conf", "nope 1\n");

    Run run = serveWithBadSettings("--config", conf.toString(), "--port", "seven");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: " + conf + ":1: unknown setting 'nope'\n");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          --port=seven         | port must be an integer, not 'seven'
          --port=65536         | port must be between 0 and 65535, not 65536
          --set=nope=1         | unknown setting 'nope'
          --set=port           | --set needs NAME=VALUE, not 'port'
          --set==7000          | --set needs NAME=VALUE, not '=7000'
          --set=timeout=-1     | timeout must be between 0 and 2147483647, not -1
          --set=databases=2    | databases must be between 1 and 1, not 2
          """)
  void serve_badFlag_exits2WithOneLine(String flag, String message) throws IOException {
    Run run = serveWithBadSettings(flag);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: " + message + "\n");
  }

  @Test
  void serve_missingConfigFile_exits2() throws IOException {
    Path conf = tmp.resolve("missing.conf");

    Run run = serveWithBadSettings("--config", conf.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: cannot read " + conf + ": no such file\n");
  }

  @Test
  void serve_configFileIsADirectory_exits2() throws IOException {
    Path conf = Files.createDirectory(tmp.resolve("conf.d"));

    Run run = serveWithBadSettings("--config", conf.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: cannot read " + conf + ": Is a directory\n");
  }

  @Test
  void serve_oversizedConfigFile_exits2() throws IOException {
    Path conf = file("idem.conf", "#".repeat((int) ServeCommand.MAX_CONFIG_BYTES) + "\n");

    Run run = serveWithBadSettings("--config", conf.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: " + conf + " is larger than 1048576 bytes\n");
  }

  @Test
  void serve_endlessConfigFile_exits2WithoutReadingItAll() throws IOException {
    // A device reports size 0 and never ends: only the bytes read may decide.
    Path zero = Path.of("/dev/zero");
    assumeThat(Files.isReadable(zero)).isTrue();

    Run run = serveWithBadSettings("--config", zero.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: /dev/zero is larger than 1048576 bytes\n");
  }

  @Test
  void serve_configFileNotUtf8_exits2NamingTheLine() throws IOException {
    Path conf = tmp.resolve("idem.conf");
    Files.write(conf, new byte[] {'p', 'o', 'r', 't', ' ', '1', '\n', 'b', 'i', 'n', 'd', ' ', -1});

    Run run = serveWithBadSettings("--config", conf.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("idem serve: " + conf + ":2: not UTF-8 text\n");
  }

  // ---- start failures: one line, exit code 1, nothing left running

  @Test
  void serve_portTaken_exits1AndReleasesTheData() throws Exception {
    Path dir = tmp.resolve("data");
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();

      Run run = Run.main("", "serve", "--port", Integer.toString(port), "--dir", dir.toString());

      assertThat(run.exitCode()).isEqualTo(1);
      assertThat(run.err())
          .isEqualTo(
              "idem serve: cannot listen on 127.0.0.1:" + port + ": Address already in use\n");
    }
    // The store opened before the bind failed was closed: another server can take it.
    Config config = configure("--port", "0", "--dir", dir.toString());
    IdemServer.start(config).close();
  }

  @Test
  void serve_dirIsARegularFile_exits1() throws IOException {
    Path file = file("file", "not a directory");

    Run run = Run.main("", "serve", "--port", "0", "--dir", file.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "idem serve: cannot create the data directory "
                + file
                + ": "
                + file
                + " is not a directory\n");
  }

  @Test
  void serve_dirUnderARegularFile_exits1() throws IOException {
    Path dir = underAFile();

    Run run = Run.main("", "serve", "--port", "0", "--dir", dir.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "idem serve: cannot create the data directory "
                + dir
                + ": a part of its path is not a directory\n");
  }

  // ---- the real command in its own JVM

  /** The server's log lines (logback.xml's pattern): everything else on stderr is for the user. */
  private static final Pattern LOG_LINE =
      Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*");

  private static final Pattern READY =
      Pattern.compile("^idem: ready on 127\\.0\\.0\\.1:(\\d+) with data in (.*)$");

  private static final Pattern TWO_READY =
      Pattern.compile(
          "^idem: ready on 127\\.0\\.0\\.1:(\\d+), 127\\.0\\.0\\.2:\\1 with data in .*$");

  /** {@code idem serve args...} in a new JVM, with native access enabled as ./idem does. */
  private static Process idem(String... args) throws IOException {
    return idemWith(List.of(), args);
  }

  /** As {@link #idem}, with these JVM options too. */
  private static Process idemWith(List<String> jvmOptions, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("--enable-native-access=ALL-UNNAMED");
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    cmd.addAll(List.of(serve(args)));
    return new ProcessBuilder(cmd).start();
  }

  /** Waits for the process to end (the bound only keeps a hung one from hanging the build). */
  private static int exitCode(Process p) throws InterruptedException {
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("idem serve still running");
    }
    return p.exitValue();
  }

  /** Reads stderr up to the ready line, which it returns; only log lines may come before it. */
  private static String readyLine(BufferedReader err) throws IOException {
    for (String line; (line = err.readLine()) != null; ) {
      if (line.startsWith("idem: ready on ")) {
        return line;
      }
      assertThat(line).as("stderr before the ready line").matches(LOG_LINE);
    }
    throw new AssertionError("idem serve ended without a ready line");
  }

  private static List<String> userLines(String stderr) {
    return stderr.lines().filter(l -> !LOG_LINE.matcher(l).matches()).toList();
  }

  @Test
  void process_portTaken_exits1WithOneLine() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      int port = taken.getLocalPort();
      Process p = idem("--port", Integer.toString(port), "--dir", tmp.resolve("data").toString());

      assertThat(exitCode(p)).isEqualTo(1);
      String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(userLines(stderr))
          .as(stderr)
          .containsExactly(
              "idem serve: cannot listen on 127.0.0.1:" + port + ": Address already in use");
    }
  }

  @Test
  void process_unknownBloomProbe_exits2WithOneLine_beforeListening() throws Exception {
    Path dir = tmp.resolve("data");
    Process p = idemWith(List.of("-Didem.bloom.probe=avx"), "--port", "0", "--dir", dir.toString());

    assertThat(exitCode(p)).isEqualTo(2);
    String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(userLines(stderr))
        .as(stderr)
        .containsExactly(
            "idem: system property idem.bloom.probe must be auto or scalar, not 'avx'");
    assertThat(dir).doesNotExist();
  }

  @Test
  void process_dirUnderARegularFile_exits1WithOneLine() throws Exception {
    Path dir = underAFile();
    Process p = idem("--port", "0", "--dir", dir.toString());

    assertThat(exitCode(p)).isEqualTo(1);
    String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(userLines(stderr))
        .as(stderr)
        .containsExactly(
            "idem serve: cannot create the data directory "
                + dir
                + ": a part of its path is not a directory");
  }

  @Test
  void process_settingsFromFileReachTheServer_andShutdownExits0() throws Exception {
    Path dir = tmp.resolve("data");
    Path conf = file("idem.conf", "requirepass s3cret\nport 1\n");
    Process p = idem("--config", conf.toString(), "--port", "0", "--dir", dir.toString());
    try {
      BufferedReader err =
          new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
      Matcher ready = READY.matcher(readyLine(err));
      assertThat(ready.matches()).as(ready.toString()).isTrue();
      assertThat(ready.group(2)).isEqualTo(dir.toAbsolutePath().normalize().toString());

      try (Socket s =
              new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(ready.group(1)));
          BufferedReader in =
              new BufferedReader(
                  new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))) {
        OutputStream out = s.getOutputStream();
        out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(in.readLine()).isEqualTo("-NOAUTH Authentication required.");
        out.write("*2\r\n$4\r\nAUTH\r\n$6\r\ns3cret\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(in.readLine()).isEqualTo("+OK");
        out.write("*1\r\n$8\r\nSHUTDOWN\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(in.readLine()).as("as from Redis: no reply, the connection closes").isNull();
      }
      assertThat(exitCode(p)).isZero();
      assertThat(err.lines().filter(l -> !LOG_LINE.matcher(l).matches())).isEmpty();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void process_twoAddresses_readyLineNamesEach_andSigtermStopsIt() throws Exception {
    Path dir = tmp.resolve("data");
    Process p = idem("--bind", "127.0.0.1 127.0.0.2", "--port", "0", "--dir", dir.toString());
    try {
      BufferedReader err =
          new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
      Matcher ready = TWO_READY.matcher(readyLine(err));
      assertThat(ready.matches()).as(ready.toString()).isTrue();

      try (Socket s = new Socket("127.0.0.2", Integer.parseInt(ready.group(1)));
          BufferedReader in =
              new BufferedReader(
                  new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII))) {
        s.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(in.readLine()).isEqualTo("+PONG");
      }
      // SIGTERM, through the handle: Process.destroy would also close the streams read below.
      p.toHandle().destroy();
      assertThat(exitCode(p)).isEqualTo(143);
      assertThat(err.lines().filter(l -> !LOG_LINE.matcher(l).matches())).isEmpty();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void endpoints_eachAddressWithThePort_ipv6InBrackets() {
    assertThat(ServeCommand.endpoints("127.0.0.1", 6379)).isEqualTo("127.0.0.1:6379");
    assertThat(ServeCommand.endpoints(" 127.0.0.1  ::1 ", 7000))
        .isEqualTo("127.0.0.1:7000, [::1]:7000");
  }
}
