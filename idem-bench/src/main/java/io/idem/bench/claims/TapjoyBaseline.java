package io.idem.bench.claims;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Tapjoy's Redis dedup (seed 003, "Real-time Deduping At Scale"), the baseline of the claim
 * benchmark. Ids live in Redis hashes of about {@code bucketIds} ids each, keyed by time: the
 * bucket key is the event second and a zero-padded slice, {@code hash(id) mod slices}, with enough
 * slices per second that a bucket holds about {@code bucketIds} ids ("1735689600:042", 14 bytes, as
 * Tapjoy's). The field is the 16-byte id, the value the 8-byte owner.
 *
 * <p>One Lua script does a bucket's claims: HMGET of the ids, an id that is absent or held by the
 * same owner is not a duplicate (the same owner is a retry), HMSET of the new ones, and it returns
 * only the duplicates as [id, owner now holding it] pairs. It also sets the 24 h expiry a real
 * deployment needs, once, when it creates the bucket.
 *
 * <p>The client cuts each connection's messages into batches, groups a batch by bucket and
 * pipelines one EVALSHA per bucket (at most {@link #MAX_IDS_PER_CALL} ids per call). A bucket
 * always goes to the same connection, so a message and its duplicate run in delivery order.
 */
public final class TapjoyBaseline {
  /** Bounds one call's argument list, well under Lua's stack limit for {@code unpack}. */
  public static final int MAX_IDS_PER_CALL = 1000;

  public static final long TTL_SECONDS = 24 * 3600;

  // Within one call an id may come twice (an original and its duplicate in the same batch):
  // 'mine' holds the owners this call has set, so the second is seen as what it is.
  public static final String SCRIPT =
      """
      local fresh = redis.call('EXISTS', KEYS[1]) == 0
      local ids = {}
      for i = 1, #ARGV, 2 do ids[#ids + 1] = ARGV[i] end
      local held = redis.call('HMGET', KEYS[1], unpack(ids))
      local mine, set, dups = {}, {}, {}
      for k = 1, #ids do
        local id, owner = ARGV[2 * k - 1], ARGV[2 * k]
        local holder = mine[id] or held[k]
        if not holder then
          mine[id] = owner
          set[#set + 1] = id
          set[#set + 1] = owner
        elseif holder ~= owner then
          dups[#dups + 1] = {id, holder}
        end
      end
      if #set > 0 then
        redis.call('HMSET', KEYS[1], unpack(set))
        if fresh then redis.call('EXPIRE', KEYS[1], TTL) end
      end
      return dups
      """
          .replace("TTL", Long.toString(TTL_SECONDS));

  private static final byte[] EVALSHA = "EVALSHA".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] ONE_KEY = "1".getBytes(StandardCharsets.US_ASCII);

  private final Workload w;
  private final int slicesPerSecond;
  private final int sliceDigits;
  private final long firstSecond;
  private final int seconds;
  private final byte[][] secondDigits;

  public TapjoyBaseline(Workload w, int bucketIds) {
    if (bucketIds < 1) {
      throw new IllegalArgumentException("ids per bucket (" + bucketIds + ") must be >= 1");
    }
    this.w = w;
    double perSecond = w.size / Math.max(1.0, w.spanMillis / 1000.0);
    this.slicesPerSecond = (int) Math.max(1, Math.ceil(perSecond / bucketIds));
    this.sliceDigits = Math.max(3, Integer.toString(slicesPerSecond - 1).length());
    this.firstSecond = Math.floorDiv(w.startMillis, 1000);
    this.seconds = (int) (Math.floorDiv(w.startMillis + w.spanMillis - 1, 1000) - firstSecond + 1);
    this.secondDigits = new byte[seconds][];
    for (int s = 0; s < seconds; s++) {
      secondDigits[s] = Long.toString(firstSecond + s).getBytes(StandardCharsets.US_ASCII);
    }
  }

  public int slicesPerSecond() {
    return slicesPerSecond;
  }

  /** The number of buckets the workload's time span covers. */
  public int bucketCount() {
    return seconds * slicesPerSecond;
  }

  /** Message {@code i}'s bucket, numbered from 0 by second then slice. */
  int bucketOf(int i) {
    int second = (int) (Math.floorDiv(w.timeMillis(i), 1000) - firstSecond);
    int slice = (int) Long.remainderUnsigned(w.idHash(i), slicesPerSecond);
    return second * slicesPerSecond + slice;
  }

  /** The connection of a bucket. */
  static int route(int bucket, int connections) {
    return (int) Long.remainderUnsigned(Workload.mix(bucket + 0x9E3779B97F4A7C15L), connections);
  }

  /** Bucket {@code b}'s key after {@code prefix}, into {@code out}; returns its length. */
  int key(byte[] prefix, int bucket, byte[] out) {
    int n = 0;
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    n += prefix.length;
    byte[] sec = secondDigits[bucket / slicesPerSecond];
    System.arraycopy(sec, 0, out, n, sec.length);
    n += sec.length;
    out[n++] = ':';
    int slice = bucket % slicesPerSecond;
    for (int d = sliceDigits - 1; d >= 0; d--) {
      out[n + d] = (byte) ('0' + slice % 10);
      slice /= 10;
    }
    return n + sliceDigits;
  }

  /** The longest bucket key with {@code prefix}. */
  int maxKeyLength(byte[] prefix) {
    return prefix.length + secondDigits[seconds - 1].length + 1 + sliceDigits;
  }

  /** The most distinct ids any bucket receives (Redis keeps small hashes compact up to a limit). */
  public int largestBucket() {
    int[] counts = new int[bucketCount()];
    for (int i = 0; i < w.size; i++) {
      counts[bucketOf(i)]++;
    }
    for (int p : w.duplicatePositions) {
      counts[bucketOf(p)]--;
    }
    int max = 0;
    for (int c : counts) {
      max = Math.max(max, c);
    }
    return max;
  }

  /** Every bucket key with {@code prefix}, for DEL and HLEN. */
  public List<byte[]> keys(String prefix) {
    byte[] p = prefix.getBytes(StandardCharsets.US_ASCII);
    byte[] scratch = new byte[maxKeyLength(p)];
    List<byte[]> keys = new ArrayList<>(bucketCount());
    for (int b = 0; b < bucketCount(); b++) {
      int n = key(p, b, scratch);
      keys.add(Arrays.copyOf(scratch, n));
    }
    return keys;
  }

  /** The job of connection {@code c} of {@code connections}: its buckets' claims. */
  public Pipeline.Job job(
      String sha, String prefix, int c, int connections, int batch, DuplicateCheck.Tally tally) {
    return new Job(
        sha.getBytes(StandardCharsets.US_ASCII),
        prefix,
        c,
        connections,
        Math.min(batch, w.size),
        tally);
  }

  private final class Job implements Pipeline.Job {
    private final byte[] sha;
    private final byte[] prefix;
    private final int connection;
    private final int connections;
    private final DuplicateCheck.Tally tally;
    private final byte[] key;

    // The current batch: its messages and their buckets, then the messages grouped by bucket.
    private final int[] positions;
    private final int[] buckets;
    private final int[] grouped;
    private final int[] groupStart;
    private final int[] groupBucket;
    private final int[] counts;
    private int cursor;
    private int groups;
    private int group;
    private int done; // messages of the current group already sent

    Job(
        byte[] sha,
        String prefix,
        int connection,
        int connections,
        int batch,
        DuplicateCheck.Tally tally) {
      this.sha = sha;
      this.prefix = prefix.getBytes(StandardCharsets.US_ASCII);
      this.connection = connection;
      this.connections = connections;
      this.tally = tally;
      this.key = new byte[maxKeyLength(this.prefix)];
      this.positions = new int[batch];
      this.buckets = new int[batch];
      this.grouped = new int[batch];
      this.groupStart = new int[batch + 1];
      this.groupBucket = new int[batch];
      this.counts = new int[bucketCount()];
    }

    @Override
    public boolean writeNext(RespWriter out) throws IOException {
      while (group == groups) {
        if (!nextBatch()) {
          return false;
        }
      }
      int from = groupStart[group] + done;
      int to = Math.min(groupStart[group + 1], from + MAX_IDS_PER_CALL);
      out.array(4 + 2 * (to - from));
      out.bulk(EVALSHA);
      out.bulk(sha);
      out.bulk(ONE_KEY);
      out.bulk(key, 0, key(prefix, groupBucket[group], key));
      for (int k = from; k < to; k++) {
        int i = grouped[k];
        out.bulk16(w.idHi[i], w.idLo[i]);
        out.bulk8(w.owner[i]);
      }
      done += to - from;
      if (groupStart[group] + done == groupStart[group + 1]) {
        group++;
        done = 0;
      }
      return true;
    }

    /** Takes this connection's next batch from the stream and groups it by bucket (stably). */
    private boolean nextBatch() {
      int n = 0;
      while (cursor < w.size && n < positions.length) {
        int i = cursor++;
        int b = bucketOf(i);
        if (route(b, connections) == connection) {
          positions[n] = i;
          buckets[n] = b;
          n++;
        }
      }
      if (n == 0) {
        return false;
      }
      // Counting sort by bucket; groups in order of first appearance, messages in stream order.
      int distinct = 0;
      for (int k = 0; k < n; k++) {
        if (counts[buckets[k]]++ == 0) {
          groupBucket[distinct++] = buckets[k];
        }
      }
      int offset = 0;
      for (int g = 0; g < distinct; g++) {
        int b = groupBucket[g];
        groupStart[g] = offset;
        offset += counts[b];
        counts[b] = groupStart[g]; // from here on: the next free place of bucket b
      }
      groupStart[distinct] = n;
      for (int k = 0; k < n; k++) {
        grouped[counts[buckets[k]]++] = positions[k];
      }
      for (int g = 0; g < distinct; g++) {
        counts[groupBucket[g]] = 0;
      }
      groups = distinct;
      group = 0;
      done = 0;
      return true;
    }

    @Override
    public void onReply(Resp reply) throws IOException {
      if (reply instanceof Resp.Err e) {
        throw new IOException("Redis refused EVALSHA: " + e.message());
      }
      if (!(reply instanceof Resp.Array(List<Resp> dups))) {
        throw new IOException("EVALSHA replied " + Resp.describe(reply) + ", not an array");
      }
      for (Resp dup : dups) {
        if (!(dup instanceof Resp.Array(List<Resp> pair)) || pair.size() != 2) {
          throw new IOException("a duplicate is " + Resp.describe(dup) + ", not [id, owner]");
        }
        tally.report(pair.get(0), pair.get(1));
      }
    }
  }
}
