package io.idem.cli;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code idem checkpoint}: asks a running server for a checkpoint of its store (the CHECKPOINT
 * command) and prints the directory it made, which a new cluster node starts from with {@code --set
 * load-checkpoint=DIR}.
 */
@Command(
    name = "checkpoint",
    header = "Make a checkpoint of a running server's store, for a node that joins.",
    sortOptions = false,
    usageHelpAutoWidth = true,
    mixinStandardHelpOptions = true,
    description = {
      "Sends CHECKPOINT to the server and prints the checkpoint's directory, under the server's"
          + " data directory in checkpoints/. Copy it to the new node's machine and start the node"
          + " with --set load-checkpoint=DIR: it fills its empty data directory from it and reads"
          + " the cluster's log from the offsets the checkpoint holds (docs/cluster.md).",
      ""
    },
    footer = {"", "Examples:", "  idem checkpoint --port 7001", "  idem checkpoint before-join"})
final class CheckpointCommand implements Callable<Integer> {

  /** The longest reply read: a path, or an error line. */
  private static final int MAX_REPLY = 64 * 1024;

  @Option(names = "--host", paramLabel = "HOST", description = "Server host (default 127.0.0.1).")
  String host = "127.0.0.1";

  @Option(names = "--port", paramLabel = "PORT", description = "Server port (default 6379).")
  int port = 6379;

  @Option(
      names = "--password",
      paramLabel = "PASSWORD",
      description =
          "The server's requirepass, if it has one (default: $REDISCLI_AUTH, as redis-cli reads"
              + " it, which keeps it out of the process list).")
  @Nullable String password = System.getenv("REDISCLI_AUTH");

  @Parameters(
      arity = "0..1",
      paramLabel = "NAME",
      description = "The checkpoint's name (default: the UTC time).")
  @Nullable String name;

  @Spec @Nullable CommandSpec spec;

  @Override
  public Integer call() {
    List<String> command = new ArrayList<>(List.of("CHECKPOINT"));
    if (name != null) {
      command.add(name);
    }
    try (Socket socket = new Socket()) {
      try {
        socket.connect(new InetSocketAddress(host, port), 5000);
      } catch (IOException e) {
        throw new CliException(1, "cannot reach the server at " + host + ":" + port + ": " + e);
      }
      socket.setSoTimeout(600_000); // a checkpoint flushes RocksDB's memtables first
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      if (password != null) {
        send(out, List.of("AUTH", password));
        reply(in);
      }
      send(out, command);
      String path = reply(in);
      PrintWriter w =
          spec == null ? new PrintWriter(System.out, true) : spec.commandLine().getOut();
      w.println(path);
      w.flush();
      return 0;
    } catch (IOException e) {
      throw new CliException(1, "the server at " + host + ":" + port + " failed to answer: " + e);
    }
  }

  private static void send(OutputStream out, List<String> words) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    b.writeBytes(("*" + words.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (String w : words) {
      byte[] bytes = w.getBytes(StandardCharsets.UTF_8);
      b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(bytes);
      b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
    }
    out.write(b.toByteArray());
    out.flush();
  }

  /** One reply: a simple or bulk string; an error becomes the command's failure. */
  private static String reply(InputStream in) throws IOException {
    int type = in.read();
    String line = line(in);
    switch (type) {
      case '+':
        return line;
      case '-':
        throw new CliException(1, line);
      case '$':
        int n;
        try {
          n = Integer.parseInt(line);
        } catch (NumberFormatException e) {
          n = -2;
        }
        if (n < 0 || n > MAX_REPLY) {
          throw new IOException("unexpected reply $" + line);
        }
        byte[] b = in.readNBytes(n);
        if (b.length != n || in.readNBytes(2).length != 2) {
          throw new IOException("a reply cut short");
        }
        return new String(b, StandardCharsets.UTF_8);
      default:
        throw new IOException("unexpected reply " + (type < 0 ? "end of stream" : (char) type));
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0 || b.size() > MAX_REPLY) {
        throw new IOException("a reply line without its end");
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.UTF_8);
  }
}
