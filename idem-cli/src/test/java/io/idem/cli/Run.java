package io.idem.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/** One in-process run of {@code idem}: its exit code, the bytes it wrote, and its stderr text. */
record Run(int exitCode, byte[] out, String err) {

  String outText() {
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  /** Runs {@code idem args...} through {@link Main#run}, with {@code input} as stdin. */
  static Run main(String input, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Main.run(
            new ByteArrayInputStream(input.getBytes(StandardCharsets.ISO_8859_1)),
            out,
            new PrintStream(err, true, StandardCharsets.UTF_8),
            args);
    return new Run(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs {@code idem uniq args...} on a prepared command, whose test hooks may be set. */
  static Run uniq(UniqCommand uniq, InputStream in, OutputStream out, String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
    uniq.in = in;
    uniq.out = out;
    uniq.err = errStream;
    CommandLine cl = Main.newCommandLine(new ServeCommand(), new SizeCommand(), uniq);
    cl.setErr(new PrintWriter(errStream, true));
    String[] full = new String[args.length + 1];
    full[0] = "uniq";
    System.arraycopy(args, 0, full, 1, args.length);
    int code = cl.execute(full);
    byte[] bytes = out instanceof ByteArrayOutputStream b ? b.toByteArray() : new byte[0];
    return new Run(code, bytes, err.toString(StandardCharsets.UTF_8));
  }

  static Run uniq(UniqCommand uniq, byte[] input, String... args) {
    return uniq(uniq, new ByteArrayInputStream(input), new ByteArrayOutputStream(), args);
  }
}
