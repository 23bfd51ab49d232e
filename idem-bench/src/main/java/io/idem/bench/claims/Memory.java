package io.idem.bench.claims;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.OptionalLong;

/** Memory and disk figures of a server process, read from outside it. */
public final class Memory {
  private Memory() {}

  /** The resident set of process {@code pid} in bytes: VmRSS of /proc/PID/status. */
  public static long rssBytes(long pid) throws IOException {
    Path status = Path.of("/proc", Long.toString(pid), "status");
    for (String line : Files.readAllLines(status, StandardCharsets.ISO_8859_1)) {
      if (line.startsWith("VmRSS:")) {
        String[] parts = line.substring(6).trim().split("\\s+");
        if (parts.length == 2 && parts[1].equals("kB")) {
          return Long.parseLong(parts[0]) * 1024;
        }
      }
    }
    throw new IOException("no VmRSS in kB in " + status);
  }

  /**
   * The apparent size in bytes of every regular file under {@code dir}. A file removed while the
   * walk runs (RocksDB deletes compacted files) counts as gone.
   */
  public static long directoryBytes(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      throw new IOException(dir + " is not a directory");
    }
    long[] total = {0};
    Files.walkFileTree(
        dir,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
            if (attrs.isRegularFile()) {
              total[0] += attrs.size();
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            return FileVisitResult.CONTINUE;
          }
        });
    return total[0];
  }

  /** A numeric field of an INFO reply ("name:value" lines), if present. */
  public static OptionalLong infoField(Resp info, String name) {
    if (!(info instanceof Resp.Bulk(byte[] bytes))) {
      return OptionalLong.empty();
    }
    String prefix = name + ":";
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\r?\n")) {
      if (line.startsWith(prefix)) {
        try {
          return OptionalLong.of(Long.parseLong(line.substring(prefix.length()).trim()));
        } catch (NumberFormatException e) {
          return OptionalLong.empty();
        }
      }
    }
    return OptionalLong.empty();
  }

  /** A text field of an INFO reply, if present. */
  public static String infoText(Resp info, String name) {
    if (info instanceof Resp.Bulk(byte[] bytes)) {
      String prefix = name + ":";
      for (String line : new String(bytes, StandardCharsets.UTF_8).split("\r?\n")) {
        if (line.startsWith(prefix)) {
          return line.substring(prefix.length()).trim();
        }
      }
    }
    return "";
  }
}
