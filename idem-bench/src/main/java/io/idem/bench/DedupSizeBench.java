package io.idem.bench;

import io.idem.bench.claims.IdemClaims;
import io.idem.bench.claims.Memory;
import io.idem.bench.claims.Pipeline;
import io.idem.bench.claims.Resp;
import io.idem.bench.claims.RespConnection;
import io.idem.bench.claims.RespWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a dedup table costs per id once it is full: N claims of random 16-byte UUIDs with 8-byte
 * owners, their event times spread over the whole 24 h window (so every slice holds its share, as
 * in a steady state), then a wait until the server has written every pending claim as a row and
 * RocksDB's files stop changing. Prints the table's memory (DEDUP.INFO), its rows' disk estimate,
 * the data directory and the server's RSS, each per id. A FILTER table also has its false positives
 * counted: ids taken for duplicates while it filled (every id is a fresh random UUID), then a probe
 * of a fifth as many ids never claimed, with DEDUP.EXISTS, once it is full.
 *
 * <pre>
 * DedupSizeBench HOST:PORT PID DATA_DIR [IDS] [MODE: exact | filter] [ERROR for filter]
 * </pre>
 */
public final class DedupSizeBench {

  private static final long WINDOW_MILLIS = 86_400_000L;
  private static final int BATCH = 1000;

  private DedupSizeBench() {}

  public static void main(String[] args) throws Exception {
    String[] hp = args[0].split(":");
    String host = hp[0];
    int port = Integer.parseInt(hp[1]);
    long pid = Long.parseLong(args[1]);
    Path dir = Path.of(args[2]);
    long ids = args.length > 3 ? Long.parseLong(args[3]) : 50_000_000L;
    String mode = args.length > 4 ? args[4] : "exact";
    String error = args.length > 5 ? args[5] : "0.000001";
    String key = "bench:size";
    try (RespConnection admin = RespConnection.open(host, port, 600_000)) {
      admin.call("DEL", key);
      if (mode.equals("filter")) {
        admin.callOk("DEDUP.RESERVE", key, "24h", "FILTER", error, Long.toString(ids));
      } else {
        admin.callOk("DEDUP.RESERVE", key, "24h", "EXACT", "CAPACITY", Long.toString(ids));
      }
      long rss0 = Memory.rssBytes(pid);
      long disk0 = Memory.directoryBytes(dir);
      long now = System.currentTimeMillis();
      long batches = (ids + BATCH - 1) / BATCH;
      int lanes = 2;
      List<RespConnection> connections = new ArrayList<>();
      List<Pipeline.Job> jobs = new ArrayList<>();
      long started = System.nanoTime();
      AtomicLong falseDuplicates = new AtomicLong();
      for (int lane = 0; lane < lanes; lane++) {
        connections.add(RespConnection.open(host, port, 600_000));
        int me = lane;
        SplittableRandom random = new SplittableRandom(42 + lane);
        jobs.add(
            new Pipeline.Job() {
              long next = me;
              long offset;

              @Override
              public boolean writeNext(RespWriter out) throws IOException {
                if (next >= batches) {
                  return false;
                }
                long n = Math.min(BATCH, ids - next * BATCH);
                // Event times spread over the window, oldest first: each slice gets its share.
                long at = now - WINDOW_MILLIS + 1 + next * (WINDOW_MILLIS - 2) / batches;
                out.array(6 + 2 * (int) n).bulk("DEDUP.MCLAIM").bulk(key).bulk("AT");
                out.bulkDecimal(at).bulk("DUPLICATES").bulk("ITEMS");
                for (int i = 0; i < n; i++) {
                  out.bulk16(random.nextLong(), random.nextLong());
                  out.bulk8((long) me << 48 | offset++);
                }
                next += lanes;
                return true;
              }

              @Override
              public void onReply(Resp reply) throws IOException {
                // Fresh random UUIDs: an exact table finds no duplicate, a filter only false ones.
                if (!(reply instanceof Resp.Array(List<Resp> dups))
                    || !dups.isEmpty() && !mode.equals("filter")) {
                  throw new IOException("unexpected reply to a claim batch: " + reply);
                }
                falseDuplicates.addAndGet(dups.size());
              }
            });
      }
      Pipeline.run(connections, jobs, 64);
      for (RespConnection c : connections) {
        c.close();
      }
      long claimMillis = (System.nanoTime() - started) / 1_000_000;
      System.out.printf(
          Locale.ROOT,
          "claimed %,d ids (%s) in %,d ms, %,d taken for duplicates; waiting for rows and files to"
              + " settle%n",
          ids,
          mode,
          claimMillis,
          falseDuplicates.get());
      // Pending claims become rows once claims pause; then RocksDB flushes and compacts.
      long lastMemory = -1;
      long lastDisk = -1;
      int stable = 0;
      while (stable < 3) {
        Thread.sleep(5000);
        long memory = field(IdemClaims.info(admin, key), "Memory bytes");
        long disk = Memory.directoryBytes(dir);
        stable = memory == lastMemory && Math.abs(disk - lastDisk) < (1 << 20) ? stable + 1 : 0;
        lastMemory = memory;
        lastDisk = disk;
      }
      Map<String, Resp> info = IdemClaims.info(admin, key);
      long items = field(info, "Items");
      long memory = field(info, "Memory bytes");
      long rows = field(info, "Disk bytes");
      long disk = Memory.directoryBytes(dir) - disk0;
      long rss = Memory.rssBytes(pid) - rss0;
      System.out.printf(
          Locale.ROOT,
          "| %s | %,d | %.2f | %.2f | %.2f | %.2f |%n",
          mode,
          items,
          (double) memory / items,
          (double) rows / items,
          (double) disk / items,
          (double) rss / items);
      System.out.println(
          "(columns: mode | items | table memory B/id (DEDUP.INFO) | rows on disk B/id (RocksDB"
              + " estimate) | data directory growth B/id | RSS growth B/id)");
      if (mode.equals("filter")) {
        long probes = ids / 5;
        long positives = probeAbsent(host, port, key, probes);
        System.out.printf(
            Locale.ROOT,
            "false positives: %,d of %,d ids never claimed (%.3g; DEDUP.INFO estimates %s),"
                + " %,d of %,d claims while filling (%.3g)%n",
            positives,
            probes,
            (double) positives / probes,
            info.get("Estimated false positive rate") instanceof Resp.Bulk(byte[] rate)
                ? new String(rate, java.nio.charset.StandardCharsets.US_ASCII)
                : "?",
            falseDuplicates.get(),
            ids,
            (double) falseDuplicates.get() / ids);
      }
    }
  }

  /** How many of {@code probes} random ids never claimed DEDUP.EXISTS answers 1 for. */
  private static long probeAbsent(String host, int port, String key, long probes)
      throws IOException {
    AtomicLong positives = new AtomicLong();
    try (RespConnection c = RespConnection.open(host, port, 600_000)) {
      SplittableRandom random = new SplittableRandom(7); // not a seed the claims used
      Pipeline.run(
          List.of(c),
          List.of(
              new Pipeline.Job() {
                long sent;

                @Override
                public boolean writeNext(RespWriter out) throws IOException {
                  if (sent++ >= probes) {
                    return false;
                  }
                  out.array(3).bulk("DEDUP.EXISTS").bulk(key);
                  out.bulk16(random.nextLong(), random.nextLong());
                  return true;
                }

                @Override
                public void onReply(Resp reply) throws IOException {
                  if (!(reply instanceof Resp.Int(long v)) || v < 0 || v > 1) {
                    throw new IOException("unexpected reply to DEDUP.EXISTS: " + reply);
                  }
                  positives.addAndGet(v);
                }
              }),
          1024);
    }
    return positives.get();
  }

  private static long field(Map<String, Resp> info, String name) throws IOException {
    if (info.get(name) instanceof Resp.Int(long v)) {
      return v;
    }
    throw new IOException("DEDUP.INFO has no integer " + name + ": " + info);
  }
}
