package io.idem.cli;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import io.idem.core.filter.RecentSet;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UniqCommandTest {

  @TempDir Path dir;

  private static byte[] bytes(String s) {
    return s.getBytes(ISO_8859_1);
  }

  /** What awk '!seen[$0]++' prints for this input, bytes kept as ISO-8859-1 chars. */
  private static String awkModel(List<String> lines) {
    Set<String> seen = new LinkedHashSet<>();
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      if (seen.add(line)) {
        out.append(line).append('\n');
      }
    }
    return out.toString();
  }

  @Test
  void uniq_fixedInput_printsWhatAwkPrints() {
    // awk '!seen[$0]++' gives b, a, "", c, "a\r", d: CR stays part of the line, the unterminated
    // last line gets its '\n'.
    Run run = Run.main("b\na\nb\n\nc\na\r\na\n\nd", "uniq");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).isEqualTo("b\na\n\nc\na\r\nd\n");
    assertThat(run.err()).isEmpty();
  }

  @Test
  void uniq_emptyInput_printsNothing() {
    Run run = Run.main("", "uniq");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEmpty();
  }

  @Property(tries = 300, seed = "20251122")
  void uniq_randomLines_matchesLinkedHashSetModel(
      @ForAll("pools") List<String> pool,
      @ForAll @Size(max = 80) List<@IntRange(min = 0, max = 1000) Integer> picks,
      @ForAll boolean lastLineEnds,
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 1, max = 40) Integer> chunks,
      @ForAll("bufferSizes") int bufferSize) {
    List<String> lines = new ArrayList<>();
    for (int pick : picks) {
      lines.add(pool.get(pick % pool.size()));
    }
    StringBuilder input = new StringBuilder();
    for (String line : lines) {
      input.append(line).append('\n');
    }
    if (!lastLineEnds && !input.isEmpty()) {
      input.setLength(input.length() - 1); // the last line loses its '\n', so it is
      if (lines.getLast().isEmpty()) { //    no line at all if it was empty
        lines.removeLast();
      }
    }
    UniqCommand uniq = new UniqCommand();
    uniq.bufferSize = bufferSize;
    uniq.stderrIsTerminal = () -> false;

    Run run = Run.uniq(uniq, new TrickleStream(bytes(input.toString()), chunks), out(), "-");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).isEqualTo(awkModel(lines));
  }

  @Provide
  Arbitrary<List<String>> pools() {
    Arbitrary<Character> bytes = Arbitraries.of('a', 'b', '\r', ' ', '\0', '\u00ff');
    Arbitrary<String> shortLine = bytes.list().ofMaxSize(4).map(UniqCommandTest::join);
    Arbitrary<String> longLine =
        bytes.list().ofMinSize(17).ofMaxSize(200).map(UniqCommandTest::join);
    return Arbitraries.frequencyOf(Tuple.of(5, shortLine), Tuple.of(1, longLine))
        .list()
        .ofMinSize(1)
        .ofMaxSize(20);
  }

  @Provide
  Arbitrary<Integer> bufferSizes() {
    return Arbitraries.of(1, 2, 16, 64, 1 << 20);
  }

  private static String join(List<Character> chars) {
    StringBuilder s = new StringBuilder();
    chars.forEach(s::append);
    return s.toString();
  }

  private static ByteArrayOutputStream out() {
    return new ByteArrayOutputStream();
  }

  @Test
  void uniq_linesLongerThanTheBuffer_printedWhole() {
    byte[] big = new byte[3 << 20];
    Arrays.fill(big, (byte) 'x');
    big[big.length / 2] = '\r';
    String bigLine = new String(big, ISO_8859_1);
    String input = "a\n" + bigLine + "\nb\n" + bigLine + "\na\n" + bigLine + "y";

    Run run = Run.main(input, "uniq");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).isEqualTo("a\n" + bigLine + "\nb\n" + bigLine + "y\n");
  }

  @Test
  void uniq_lineLongerThanMaxLineBytes_exits1NamingTheLine() {
    Run run = Run.main("0123456789\nshort\n01234567890\n", "uniq", "--max-line-bytes", "10");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "idem uniq: line 3 of standard input is longer than 10 bytes"
                + " (raise --max-line-bytes)\n");
    // The lines accepted before the failure are written, not lost in the output buffer.
    assertThat(run.outText()).isEqualTo("0123456789\nshort\n");
  }

  @Test
  void uniq_lineLongerThanMaxLineBytesAndBuffer_exits1() {
    UniqCommand uniq = new UniqCommand();
    uniq.bufferSize = 4;

    Run run = Run.uniq(uniq, bytes("ab\n" + "x".repeat(100)), "--max-line-bytes", "64");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("line 2 of standard input is longer than 64 bytes");
  }

  @Test
  void uniq_severalFiles_remembersAcrossFilesAndEndsEachFile() throws IOException {
    Path a = Files.write(dir.resolve("a.txt"), bytes("x\ny\nlast"));
    Path b = Files.write(dir.resolve("b.txt"), bytes("y\nz\nlast\n"));

    Run run = Run.main("stdin\nx\n", "uniq", a.toString(), "-", b.toString());

    // Like awk: a file's unterminated last line is a line of its own; "-" reads stdin there.
    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).isEqualTo("x\ny\nlast\nstdin\nz\n");
  }

  @Test
  void uniq_missingFile_exits1NamingFileAndReason() {
    String missing = dir.resolve("missing.txt").toString();

    Run run = Run.main("", "uniq", missing);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo("idem uniq: cannot read " + missing + ": No such file or directory\n");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void uniq_laterFileMissing_printsNothingBeforeFailing() throws IOException {
    Path a = Files.write(dir.resolve("a.txt"), bytes("x\n"));
    String missing = dir.resolve("missing.txt").toString();

    Run run = Run.main("", "uniq", a.toString(), missing);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
  }

  @Test
  void uniq_directory_exits1WithReason() {
    Run run = Run.main("", "uniq", dir.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("idem uniq: cannot read " + dir + ": Is a directory\n");
  }

  @Test
  void uniq_unknownFlag_exits2WithOneLine() {
    Run run = Run.main("", "uniq", "--bogus");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo("idem uniq: unknown option: '--bogus' (see idem uniq --help)\n");
  }

  @Test
  void uniq_errorAndWindow_exits2MutuallyExclusive() {
    Run run = Run.main("", "uniq", "--error", "0.01", "--window", "10");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "idem uniq: --error and --window are mutually exclusive (see idem uniq --help)\n");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--error 0         | --error (0.0) must be in (0, 1)",
        "--error 1         | --error (1.0) must be in (0, 1)",
        "--error 0.1 --capacity 0 | --capacity (0) must be >= 1",
        "--window 0        | --window (0) must be >= 1",
        "--window 5 --remember 1 | --remember (1.0) must be in (0, 1)",
        "--capacity 5      | --capacity applies only with --error",
        "--remember 0.5    | --remember applies only with --window",
        "--max-line-bytes 0 | --max-line-bytes (0) must be in",
        "--window x        | invalid value for option '--window': 'x' is not a whole number",
      })
  void uniq_badValue_exits2WithMessage(String args, String message) {
    Run run = Run.main("", ("uniq " + args.strip()).split(" "));

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("idem uniq: " + message.strip()).endsWith("\n");
    assertThat(run.err().lines()).hasSize(1);
  }

  @Test
  void uniq_errorMode_neverPrintsADuplicateAndKeepsAtLeastOneMinusE() {
    int distinct = 20_000;
    double error = 0.01;
    StringBuilder input = new StringBuilder();
    for (int i = 0; i < distinct; i++) {
      input.append("line-").append(i).append('\n');
      input.append("line-").append(i / 2).append('\n'); // a repeat, near its first occurrence
    }

    // Capacity 1000 makes the filter grow through several layers.
    Run run = Run.main(input.toString(), "uniq", "--error", "0.01", "--capacity", "1000");

    assertThat(run.exitCode()).isZero();
    List<String> printed = run.outText().lines().toList();
    assertThat(new HashSet<>(printed)).hasSameSizeAs(printed);
    assertThat(printed).allMatch(line -> line.matches("line-\\d+"));
    assertThat(printed.size()).isGreaterThanOrEqualTo((int) ((1 - error) * distinct));
  }

  @Test
  void uniq_windowMode_immediateRepeatsNeverPrintedTwiceInARow() {
    StringBuilder input = new StringBuilder();
    java.util.Random random = new java.util.Random(7);
    Set<String> distinct = new HashSet<>();
    for (int run = 0; run < 5_000; run++) {
      String line = "v" + random.nextInt(300);
      distinct.add(line);
      for (int repeat = 1 + random.nextInt(4); repeat > 0; repeat--) {
        input.append(line).append('\n');
      }
    }

    Run run = Run.main(input.toString(), "uniq", "--window", "2", "--remember", "0.5");

    assertThat(run.exitCode()).isZero();
    List<String> printed = run.outText().lines().toList();
    for (int i = 1; i < printed.size(); i++) {
      assertThat(printed.get(i)).as("line %s", i).isNotEqualTo(printed.get(i - 1));
    }
    // A RecentSet never says "seen" for a new line, so every distinct line is printed at least
    // once; with a window of 2 most come back.
    assertThat(new HashSet<>(printed)).isEqualTo(distinct);
    assertThat(printed.size()).isGreaterThan(distinct.size());
  }

  @Test
  void uniq_stats_printsCountsModeAndMemory() {
    Run run = Run.main("a\nb\na\nc\nb\nb\nd\n", "uniq", "--stats");

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).isEqualTo("a\nb\nc\nd\n");
    assertThat(run.err())
        .containsPattern("lines read +7\n")
        .containsPattern("lines written +4\n")
        .containsPattern("duplicates dropped +3\n")
        .containsPattern("mode +exact up to 128-bit hash collisions\n")
        .containsPattern("structure bytes +\\d+ \\(")
        .containsPattern("JVM heap used +\\d+ \\(")
        .containsPattern("JVM direct used +\\d+ \\(");
  }

  @Test
  void uniq_statsWithALargeBloomLayer_countItAsDirectMemory() {
    // 1 M lines at 1 %: a first layer of 1.2 MB, off the heap (from 1 MiB).
    Run run = Run.main("a\nb\na\n", "uniq", "--stats", "--error", "0.01", "--capacity", "1000000");

    assertThat(run.exitCode()).isZero();
    Matcher structure = Pattern.compile("structure bytes +(\\d+) ").matcher(run.err());
    Matcher direct = Pattern.compile("JVM direct used +(\\d+) ").matcher(run.err());
    assertThat(structure.find()).isTrue();
    assertThat(direct.find()).isTrue();
    assertThat(Long.parseLong(structure.group(1))).isGreaterThan(1L << 20);
    // The whole JVM's direct memory: at least the layer, alive until the command returns.
    assertThat(Long.parseLong(direct.group(1)))
        .isGreaterThanOrEqualTo(Long.parseLong(structure.group(1)));
  }

  @Test
  void uniq_statsInWindowMode_namesTheSlots() {
    long slots = RecentSet.slotsToRemember(100, 0.9);

    Run run = Run.main("a\na\n", "uniq", "--stats", "--window", "100");

    assertThat(run.err())
        .contains("RecentSet of " + slots + " slots")
        .containsPattern("structure bytes +" + slots * 16 + " ");
  }

  @Test
  void uniq_statsInErrorMode_namesTheRate() {
    Run run = Run.main("a\na\n", "uniq", "--stats", "--error", "0.001", "--capacity", "100");

    assertThat(run.err())
        .contains("wrongly dropped with probability at most 0.001")
        .contains("1 layers");
  }

  @Test
  void uniq_inputWouldBlock_flushesBeforeReadingOn() {
    ByteArrayOutputStream out = out();
    List<String> seenBeforeSecondRead = new ArrayList<>();
    InputStream pipe =
        new InputStream() {
          int reads;

          @Override
          public int read() {
            throw new UnsupportedOperationException();
          }

          @Override
          public int read(byte[] b, int off, int len) {
            reads++;
            if (reads == 1) {
              byte[] data = bytes("a\nb\na\n");
              System.arraycopy(data, 0, b, off, data.length);
              return data.length;
            }
            seenBeforeSecondRead.add(out.toString(ISO_8859_1));
            return -1;
          }

          @Override
          public int available() {
            return 0; // a pipe with nothing waiting: the next read would block
          }
        };

    Run run = Run.uniq(new UniqCommand(), pipe, out);

    assertThat(run.exitCode()).isZero();
    assertThat(seenBeforeSecondRead).containsExactly("a\nb\n");
  }

  @Test
  void uniq_progressOnATerminal_drawsAndClearsACarriageReturnLine() {
    UniqCommand uniq = new UniqCommand();
    uniq.stderrIsTerminal = () -> true;
    AtomicLong clock = new AtomicLong();
    uniq.nanoTime = () -> clock.addAndGet(1_000_000_000L);
    byte[] input = bytes("x\ny\n".repeat(600_000));

    Run run = Run.uniq(uniq, input);

    assertThat(run.exitCode()).isZero();
    assertThat(run.outText()).isEqualTo("x\ny\n");
    assertThat(run.err()).startsWith("\ridem uniq: 1,048,576 lines read, 2 written").endsWith("\r");
    assertThat(run.err()).doesNotContain("\n");
  }

  @Test
  void uniq_notATerminal_drawsNoProgress() {
    UniqCommand uniq = new UniqCommand();
    uniq.stderrIsTerminal = () -> false;
    uniq.nanoTime = new AtomicLong()::incrementAndGet;

    Run run = Run.uniq(uniq, bytes("x\n".repeat(1_100_000)));

    assertThat(run.err()).isEmpty();
  }

  @Test
  void uniq_readerGone_exits141Quietly() {
    Run run =
        Run.uniq(new UniqCommand(), new ByteArrayInputStream(bytes("a\n")), failing("Broken pipe"));

    assertThat(run.exitCode()).isEqualTo(141);
    assertThat(run.err()).isEmpty();
  }

  @Test
  void uniq_outputFails_exits1WithReason() {
    Run run =
        Run.uniq(
            new UniqCommand(),
            new ByteArrayInputStream(bytes("a\n")),
            failing("No space left on device"));

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).isEqualTo("idem uniq: cannot write output: No space left on device\n");
  }

  private static OutputStream failing(String reason) {
    return new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        throw new IOException(reason);
      }

      @Override
      public void write(byte[] b, int off, int len) throws IOException {
        throw new IOException(reason);
      }
    };
  }

  /** Hands out its bytes in chunks of the given sizes, in turn; reports nothing available. */
  private static final class TrickleStream extends InputStream {
    private final byte[] data;
    private final List<Integer> chunks;
    private int pos;
    private int turn;

    TrickleStream(byte[] data, List<Integer> chunks) {
      this.data = data;
      this.chunks = chunks;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xff : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (pos == data.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, chunks.get(turn++ % chunks.size())), data.length - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }
}
