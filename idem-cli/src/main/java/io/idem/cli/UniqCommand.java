package io.idem.cli;

import io.idem.core.filter.FilterFullException;
import io.idem.core.filter.RecentSet;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.hash.Hash128;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code idem uniq}: prints each line the first time it is seen, like awk '!seen[$0]++'. */
@Command(
    name = "uniq",
    header = "Print each line the first time it is seen, like awk '!seen[$0]++'.",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Lines are written in input order, as soon as they are read. Lines are bytes",
      "split at \\n, never decoded; a last line without \\n is printed with one added.",
      "",
      "Modes:",
      "  (default)   exact up to 128-bit hash collisions: keeps each distinct line's",
      "              128-bit hash, 18 to 22 bytes per distinct line",
      "  --error E   a scalable Bloom filter: a new line is wrongly dropped with",
      "              probability at most E; memory grows with the distinct lines",
      "              (idem size shows how)",
      "  --window N  a RecentSet in fixed memory: never drops a new line; remembers",
      "              about the last N distinct lines, so a line last seen longer",
      "              ago may be printed again",
      ""
    },
    footer = {
      "",
      "Examples:",
      "  tail -f events.log | idem uniq",
      "  idem uniq --window 1M --stats a.txt b.txt > first.txt"
    })
final class UniqCommand implements Callable<Integer> {
  /*
   * The loop reads into one byte buffer, finds each '\n', hashes the line in place and writes
   * the same bytes out: no decoding and no copy per line. A line longer than the buffer makes the
   * buffer grow, up to --max-line-bytes. Output is flushed whenever the next read would block, so
   * a pipe that trickles sees its lines at once, while a file is written in large blocks.
   */

  static final String EXACT_MODE = "exact up to 128-bit hash collisions";
  static final long DEFAULT_CAPACITY = 1_000_000;
  static final double DEFAULT_REMEMBER = 0.9;
  static final long DEFAULT_MAX_LINE_BYTES = 64L << 20;
  static final int MAX_BUFFER = Integer.MAX_VALUE - 16;
  private static final byte[] NEWLINE = {'\n'};
  private static final long PROGRESS_AFTER_LINES = 1_000_000;
  private static final long PROGRESS_EVERY_NANOS = 500_000_000L;

  @Spec @Nullable CommandSpec spec;

  @Parameters(
      paramLabel = "FILE",
      arity = "0..*",
      description = "Files to read, in order (one set of seen lines across all). - or none: stdin.")
  List<String> files = new ArrayList<>();

  @Option(
      names = "--error",
      paramLabel = "E",
      description =
          "Approximate: a scalable Bloom filter; a new line is wrongly dropped with probability"
              + " at most E, in (0, 1).")
  @Nullable Double error;

  @Option(
      names = "--capacity",
      paramLabel = "N",
      converter = CountConverter.class,
      description =
          "With --error: lines the first Bloom layer holds before the filter grows"
              + " (default: ${DEFAULT-VALUE}).")
  long capacity = DEFAULT_CAPACITY;

  @Option(
      names = "--window",
      paramLabel = "N",
      converter = CountConverter.class,
      description = "Bounded: remember about the last N distinct lines, in fixed memory.")
  @Nullable Long window;

  @Option(
      names = "--remember",
      paramLabel = "P",
      description =
          "With --window: the probability, in (0, 1), that a line is still remembered after N"
              + " further distinct lines (default: ${DEFAULT-VALUE}).")
  double remember = DEFAULT_REMEMBER;

  @Option(
      names = "--max-line-bytes",
      paramLabel = "BYTES",
      converter = CountConverter.class,
      description = "The longest line accepted; a longer one is an error (default: 64MiB).")
  long maxLineBytes = DEFAULT_MAX_LINE_BYTES;

  @Option(
      names = "--stats",
      description =
          "At the end, print lines read and written, duplicates dropped, the mode and memory"
              + " to stderr.")
  boolean stats;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help and exit.")
  boolean help;

  // Injected by tests; the process's own streams otherwise.
  InputStream in = System.in;
  OutputStream out = new FileOutputStream(FileDescriptor.out);
  PrintStream err = System.err;
  BooleanSupplier stderrIsTerminal = Terminal::stderrIsTerminal;
  LongSupplier nanoTime = System::nanoTime;
  int bufferSize = 1 << 20;

  private final Hash128 hash = new Hash128();
  private byte[] buf = new byte[0];
  private @Nullable OutputStream output;
  private SeenSet seen = SeenSet.of(RecentSet.create(1)); // replaced in call()
  private @Nullable ScalableBloomFilter bloom;
  private String mode = EXACT_MODE;
  private long linesRead;
  private long linesWritten;
  private boolean progress;
  private long lastProgress;
  private int progressWidth;

  @Override
  public Integer call() {
    validate();
    List<String> inputs = files.isEmpty() ? List.of("-") : files;
    for (String file : inputs) {
      if (!file.equals("-")) {
        try (FileInputStream probe = new FileInputStream(file)) {
          // Opened only to fail before any output if a later file is unreadable.
        } catch (IOException e) {
          throw cannotRead(file, e);
        }
      }
    }
    try {
      seen = createSeenSet();
    } catch (OutOfMemoryError e) {
      throw outOfMemory();
    }
    buf = new byte[(int) Math.min(bufferSize, maxLineBytes + 1)];
    output = new BufferedOutputStream(out, 1 << 16);
    progress = stderrIsTerminal.getAsBoolean();
    lastProgress = nanoTime.getAsLong();
    try {
      for (String file : inputs) {
        if (file.equals("-")) {
          process(in, "standard input");
        } else {
          try (InputStream input = open(file)) {
            process(input, file);
          }
        }
      }
      output.flush();
    } catch (OutputException e) {
      IOException cause = e.getCause();
      if (String.valueOf(cause.getMessage()).contains("Broken pipe")) {
        return 141; // as if killed by SIGPIPE, and as quietly: the reader has gone
      }
      throw new CliException(1, "cannot write output: " + reason(cause));
    } catch (IOException e) {
      throw new CliException(1, "cannot close input: " + reason(e));
    } catch (OutOfMemoryError e) {
      throw outOfMemory();
    } catch (FilterFullException e) {
      throw new CliException(
          1, "cannot remember more lines after " + linesRead + " lines read: " + e.getMessage());
    } finally {
      // Lines already accepted reach the output even when a later file or line fails the run.
      OutputStream o = output;
      if (o != null) {
        try {
          o.flush();
        } catch (IOException ignored) {
          // the failure being reported, or a reader that went away, says more than this one
        }
      }
      clearProgress();
      seen.close();
    }
    if (stats) {
      printStats();
    }
    return 0;
  }

  private void validate() {
    CommandSpec s = spec();
    var parsed = s.commandLine().getParseResult();
    if (error != null && window != null) {
      throw usage("--error and --window are mutually exclusive");
    }
    if (parsed.hasMatchedOption("--capacity") && error == null) {
      throw usage("--capacity applies only with --error");
    }
    if (parsed.hasMatchedOption("--remember") && window == null) {
      throw usage("--remember applies only with --window");
    }
    if (error != null && !(error > 0 && error < 1)) {
      throw usage("--error (" + error + ") must be in (0, 1)");
    }
    if (capacity < 1) {
      throw usage("--capacity (" + capacity + ") must be >= 1");
    }
    if (window != null && window < 1) {
      throw usage("--window (" + window + ") must be >= 1");
    }
    if (!(remember > 0 && remember < 1)) {
      throw usage("--remember (" + remember + ") must be in (0, 1)");
    }
    if (maxLineBytes < 1 || maxLineBytes > MAX_BUFFER - 1) {
      throw usage(
          "--max-line-bytes (" + maxLineBytes + ") must be in [1, " + (MAX_BUFFER - 1) + "]");
    }
  }

  private SeenSet createSeenSet() {
    if (error != null) {
      double e = error;
      long bytes;
      try {
        bytes =
            ScalableBloomFilter.layerSizing(
                    capacity, e, ScalableBloomFilter.DEFAULT_EXPANSION, true, 0)
                .bytes();
      } catch (IllegalArgumentException ex) {
        throw usage("--capacity " + capacity + " --error " + e + ": " + ex.getMessage());
      }
      checkHeap(bytes, "--capacity " + capacity + " at --error " + e);
      mode =
          "scalable Bloom filter: a new line is wrongly dropped with probability at most "
              + e
              + " (initial capacity "
              + capacity
              + ", expansion "
              + ScalableBloomFilter.DEFAULT_EXPANSION
              + ")";
      ScalableBloomFilter filter =
          ScalableBloomFilter.create(capacity, e, ScalableBloomFilter.DEFAULT_EXPANSION);
      bloom = filter;
      return SeenSet.of(filter);
    }
    if (window != null) {
      long slots = RecentSet.slotsToRemember(window, remember);
      if (slots > RecentSet.MAX_SLOTS) {
        throw usage(
            "--window "
                + window
                + " at --remember "
                + remember
                + " needs "
                + slots
                + " slots, more than a RecentSet holds ("
                + RecentSet.MAX_SLOTS
                + ")");
      }
      checkHeap(slots * 16, "--window " + window + " (" + slots + " slots)");
      mode =
          "RecentSet of "
              + slots
              + " slots: remembers about the last "
              + window
              + " distinct lines (each with probability >= "
              + remember
              + ")";
      return SeenSet.of(RecentSet.create(slots));
    }
    mode = EXACT_MODE;
    return new LongPairSet(1 << 16);
  }

  /** Streams one input: prints its first-seen lines. The buffer is shared across inputs. */
  private void process(InputStream input, String name) throws IOException {
    byte[] b = buf;
    int start = 0; // first byte of the current line
    int end = 0; // end of the bytes read
    int scan = 0; // where to look for the next '\n'
    while (true) {
      int nl = -1;
      for (int i = scan; i < end; i++) {
        if (b[i] == '\n') {
          nl = i;
          break;
        }
      }
      if (nl >= 0) {
        line(b, start, nl - start, true, name);
        start = nl + 1;
        scan = start;
        continue;
      }
      // No '\n' in [start, end): keep the partial line at the front and read more behind it.
      int partial = end - start;
      if (partial > maxLineBytes) {
        throw lineTooLong(name);
      }
      if (start > 0) {
        System.arraycopy(b, start, b, 0, partial);
        start = 0;
        end = partial;
      }
      scan = end;
      if (end == b.length) {
        b = Arrays.copyOf(b, (int) Math.min(2L * b.length, maxLineBytes + 1));
        buf = b;
      }
      if (wouldBlock(input)) {
        flush();
      }
      int n;
      try {
        n = input.read(b, end, b.length - end);
      } catch (IOException e) {
        throw cannotRead(name, e);
      }
      if (n < 0) {
        if (end > start) {
          line(b, start, end - start, false, name);
        }
        return;
      }
      end += n;
    }
  }

  private void line(byte[] b, int off, int len, boolean hasNewline, String name) {
    if (len > maxLineBytes) {
      throw lineTooLong(name);
    }
    linesRead++;
    hash.hash(b, off, len);
    if (seen.add(hash.h1(), hash.h2())) {
      linesWritten++;
      write(b, off, hasNewline ? len + 1 : len);
      if (!hasNewline) {
        write(NEWLINE, 0, 1);
      }
    }
    if (progress && linesRead >= PROGRESS_AFTER_LINES && (linesRead & 0xffff) == 0) {
      long now = nanoTime.getAsLong();
      if (now - lastProgress >= PROGRESS_EVERY_NANOS) {
        lastProgress = now;
        showProgress();
      }
    }
  }

  private void write(byte[] b, int off, int len) {
    try {
      output().write(b, off, len);
    } catch (IOException e) {
      throw new OutputException(e);
    }
  }

  private void flush() {
    try {
      output().flush();
    } catch (IOException e) {
      throw new OutputException(e);
    }
  }

  private OutputStream output() {
    OutputStream o = output;
    if (o == null) {
      throw new IllegalStateException("output used before call()");
    }
    return o;
  }

  private static boolean wouldBlock(InputStream input) {
    try {
      return input.available() == 0;
    } catch (IOException e) {
      return true; // the read will report the real problem
    }
  }

  private static InputStream open(String file) {
    try {
      return new FileInputStream(file);
    } catch (FileNotFoundException e) {
      throw cannotRead(file, e);
    }
  }

  private void showProgress() {
    String text =
        String.format(
            Locale.ROOT,
            "idem uniq: %,d lines read, %,d written, %s in the %s",
            linesRead,
            linesWritten,
            Text.bytes(seen.sizeInBytes()),
            error != null ? "filter" : window != null ? "window" : "table");
    String pad = " ".repeat(Math.max(0, progressWidth - text.length()));
    progressWidth = text.length();
    err.print("\r" + text + pad);
    err.flush();
  }

  private void clearProgress() {
    if (progressWidth > 0) {
      err.print("\r" + " ".repeat(progressWidth) + "\r");
      err.flush();
      progressWidth = 0;
    }
  }

  private void printStats() {
    Runtime rt = Runtime.getRuntime();
    long heap = rt.totalMemory() - rt.freeMemory();
    long direct = DirectMemory.used(); // the exact set, and Bloom layers from 1 MiB, live here
    long structure = seen.sizeInBytes();
    ScalableBloomFilter filter = bloom;
    String table =
        new Text.Table("ll")
            .row("lines read", Long.toString(linesRead))
            .row("lines written", Long.toString(linesWritten))
            .row("duplicates dropped", Long.toString(linesRead - linesWritten))
            .row("mode", filter == null ? mode : mode + ", " + filter.layerCount() + " layers")
            .row("structure bytes", structure + " (" + Text.bytes(structure) + ")")
            .row("JVM heap used", heap + " (" + Text.bytes(heap) + ")")
            .row("JVM direct used", direct + " (" + Text.bytes(direct) + ")")
            .render();
    err.print(table);
    err.flush();
  }

  /**
   * Stops with a clear error unless {@code bytes} fit in the heap left. A Bloom layer from 1 MiB
   * lives off the heap, as direct memory, whose limit defaults to the heap's maximum: this check,
   * made at start, stands for both, and raising -Xmx raises both.
   */
  private void checkHeap(long bytes, String what) {
    Runtime rt = Runtime.getRuntime();
    long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
    if (bytes > free) {
      throw new CliException(
          1,
          what
              + " needs "
              + Text.bytes(bytes)
              + ", more than the "
              + Text.bytes(free)
              + " of heap left; raise it with IDEM_JAVA_OPTS=-Xmx<size>");
    }
  }

  private CliException outOfMemory() {
    Runtime rt = Runtime.getRuntime();
    return new CliException(
        1,
        "out of memory after "
            + linesRead
            + " lines read ("
            + Text.bytes(rt.maxMemory())
            + " heap); use --error or --window, or raise the heap with IDEM_JAVA_OPTS=-Xmx<size>");
  }

  private CliException lineTooLong(String name) {
    return new CliException(
        1,
        "line "
            + (linesRead + 1)
            + " of "
            + name
            + " is longer than "
            + maxLineBytes
            + " bytes (raise --max-line-bytes)");
  }

  static CliException cannotRead(String file, IOException e) {
    return new CliException(1, "cannot read " + file + ": " + reason(e));
  }

  /** The OS's reason, without the file name the JDK puts in front of it. */
  static String reason(IOException e) {
    String m = String.valueOf(e.getMessage());
    // FileInputStream says "name (No such file or directory)".
    if (e instanceof FileNotFoundException && m.endsWith(")") && m.lastIndexOf(" (") >= 0) {
      return m.substring(m.lastIndexOf(" (") + 2, m.length() - 1);
    }
    return m;
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec().commandLine(), message);
  }

  private CommandSpec spec() {
    CommandSpec s = spec;
    if (s == null) {
      throw new IllegalStateException("run through picocli: the spec is injected");
    }
    return s;
  }

  /** A write failed: kept apart from read failures, which name their file. */
  private static final class OutputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OutputException(IOException cause) {
      super(cause);
    }

    @Override
    public synchronized IOException getCause() {
      return (IOException) super.getCause();
    }
  }
}
