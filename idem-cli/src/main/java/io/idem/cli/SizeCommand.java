package io.idem.cli;

import io.idem.core.dedup.DedupSizing;
import io.idem.core.dedup.DedupTable.Params;
import io.idem.core.filter.BloomFilter;
import io.idem.core.filter.CuckooFilter;
import io.idem.core.filter.RecentSet;
import io.idem.core.filter.RedisBloomChain;
import io.idem.core.filter.ScalableBloomFilter;
import io.idem.core.seen.GuavaBloomFilter;
import io.idem.core.seen.SeenCache;
import io.idem.core.seen.SeenCacheCodec;
import io.idem.core.seen.SigningKeys;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/** {@code idem size}: what each structure costs for a configuration, before it is made. */
@Command(
    name = "size",
    header = "Show what each filter, a RecentSet or a dedup table needs for a configuration.",
    sortOptions = false,
    usageHelpAutoWidth = true,
    description = {
      "Shows what each filter needs for N items at false-positive rate E: bits, bytes, bits per"
          + " item and hashes, beside the lower bound log2(1/E) bits per item; the layers a"
          + " scalable Bloom filter adds as it grows; the cuckoo filter's fingerprint and load.",
      "With --recent: the slots a RecentSet needs to still recognise an item with probability P"
          + " after X further distinct items.",
      "With --window: what a dedup table (DEDUP.RESERVE) of each mode holds in memory for N"
          + " claims per window (EXACT, and FILTER at rate E) or for the RecentSet's slots"
          + " (RECENT), from the server's own sizing.",
      "With --cookie C --error E: how many items a seen-cache cookie of at most C characters"
          + " holds at rate E, measured by filling one with random items: its capacity, its"
          + " length when full, what it keeps once it ages, and Guava's writeTo in base64 for"
          + " the same items.",
      ""
    },
    footer = {
      "",
      "Examples:",
      "  idem size --capacity 1M --error 0.001",
      "  idem size --recent --after 3.6e6 --remember 0.9 --json",
      "  idem size --capacity 2.88e9 --error 1e-6 --window 24h",
      "  idem size --cookie 4096 --error 0.01 --tag 12"
    })
final class SizeCommand implements Callable<Integer> {
  /*
   * Every figure comes from the core's own sizing methods, the ones the filters are built with, and
   * for dedup tables from the server's (DedupSizing), so what this prints is what a filter or a
   * DEDUP.RESERVE of that configuration allocates.
   */

  static final double DEFAULT_REMEMBER = 0.9;

  /** The scalable filter's layers are listed until their total capacity reaches this multiple. */
  static final int GROWTH_SHOWN = 64;

  @Spec @Nullable CommandSpec spec;

  @Option(
      names = "--capacity",
      paramLabel = "N",
      converter = CountConverter.class,
      description =
          "Items the filter holds at its configured rate; with --window, claims per window.")
  @Nullable Long capacity;

  @Option(
      names = "--error",
      paramLabel = "E",
      description = "False-positive rate at capacity, in (0, 1).")
  @Nullable Double error;

  @Option(
      names = "--expansion",
      paramLabel = "X",
      description =
          "Scalable Bloom: each new layer is X times the last (default: ${DEFAULT-VALUE}).")
  int expansion = ScalableBloomFilter.DEFAULT_EXPANSION;

  @Option(
      names = "--bucket-size",
      paramLabel = "B",
      description = "Cuckoo: fingerprints per bucket (default: ${DEFAULT-VALUE}).")
  int bucketSize = CuckooFilter.DEFAULT_BUCKET_SIZE;

  @Option(
      names = "--max-iterations",
      paramLabel = "K",
      description = "Cuckoo: kicks before an insert gives up (default: ${DEFAULT-VALUE}).")
  int maxIterations = CuckooFilter.DEFAULT_MAX_ITERATIONS;

  @Option(names = "--recent", description = "Size a RecentSet (needs --after).")
  boolean recent;

  @Option(
      names = "--after",
      paramLabel = "X",
      converter = CountConverter.class,
      description = "With --recent: further distinct items after which an item must be recognised.")
  @Nullable Long after;

  @Option(
      names = "--remember",
      paramLabel = "P",
      description =
          "With --recent: the probability of still recognising it, in (0, 1)"
              + " (default: ${DEFAULT-VALUE}).")
  double remember = DEFAULT_REMEMBER;

  @Option(
      names = "--window",
      paramLabel = "W",
      description =
          "Size dedup tables with this window, as DEDUP.RESERVE takes it: seconds, or 90s, 15m,"
              + " 24h, 7d; from 1s to 3650d (needs --capacity or --recent).")
  @Nullable String window;

  @Option(
      names = "--slices",
      paramLabel = "S",
      description =
          "With --window: the table's slices (default: 8, but none shorter than a second).")
  @Nullable Integer slices;

  @Option(
      names = "--cookie",
      paramLabel = "C",
      description = "Size a seen-cache cookie of at most C characters (needs --error).")
  @Nullable Integer cookie;

  @Option(
      names = "--tag",
      paramLabel = "T",
      description =
          "With --cookie: the HMAC tag's bytes, 0 for an unsigned cookie (default: ${DEFAULT-VALUE}).")
  int tag;

  @Option(
      names = "--json",
      description =
          "Print one JSON object keyed by type (bloom, scalable-bloom, cuckoo, recent, dedup-exact,"
              + " dedup-filter, dedup-recent).")
  boolean json;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help and exit.")
  boolean help;

  // Set by validate() from --window and --slices.
  private long windowMillis;
  private int sliceCount;

  // Injected by tests; the process's own streams otherwise.
  OutputStream out = new FileOutputStream(FileDescriptor.out);
  PrintStream err = System.err;

  /** The classic layout's first link, non-scaling and scaling; null where refused. */
  record Classic(
      RedisBloomChain.@Nullable Sizing nonScaling, RedisBloomChain.@Nullable Sizing scaling) {}

  /** A classic filter's expected rate when it holds its capacity: (1 - e^(-kn/m))^k. */
  private static double classicRate(RedisBloomChain.Sizing s) {
    double k = s.hashes();
    return Math.pow(-Math.expm1(-k * s.capacity() / s.bits()), k);
  }

  /** One scalable Bloom layer, with the totals up to and including it. */
  record Layer(int index, BloomFilter.Sizing sizing, long totalCapacity, long totalBytes) {}

  /** The scalable filter's layers until GROWTH_SHOWN x capacity, and why it stopped early if so. */
  record Growth(List<Layer> layers, @Nullable String stoppedBecause) {}

  /** The dedup tables that can be made, by mode; null for a mode not asked for or refused. */
  record Dedup(@Nullable Params exact, @Nullable Params filter, @Nullable Params recent) {}

  @Override
  public Integer call() {
    if (cookie != null) {
      return cookie(cookie);
    }
    if (spec().commandLine().getParseResult().hasMatchedOption("--tag")) {
      throw usage("--tag applies only with --cookie");
    }
    validate();
    BloomFilter.@Nullable Sizing bloom = null;
    RedisBloomChain.@Nullable Sizing classic = null;
    RedisBloomChain.@Nullable Sizing scalableClassic = null;
    @Nullable Growth growth = null;
    CuckooFilter.@Nullable Sizing cuckoo = null;
    List<String> problems = new ArrayList<>();
    Long n = capacity;
    Double e = error;
    if (n != null && e != null) {
      try {
        classic = RedisBloomChain.linkSizing(n, e, expansion, true, 0);
        scalableClassic = RedisBloomChain.linkSizing(n, e, expansion, false, 0);
      } catch (IllegalArgumentException | ArithmeticException ex) {
        problems.add("classic: " + ex.getMessage());
      }
      try {
        bloom = BloomFilter.sizing(n, e);
      } catch (IllegalArgumentException ex) {
        problems.add("bloom: " + ex.getMessage());
      }
      growth = growth(n, e);
      if (growth.layers().isEmpty()) {
        problems.add("scalable-bloom: " + growth.stoppedBecause());
        growth = null;
      }
      try {
        cuckoo = CuckooFilter.sizing(n, e, bucketSize, maxIterations);
      } catch (IllegalArgumentException ex) {
        problems.add("cuckoo: " + ex.getMessage());
      }
    }
    long slots = 0;
    Long x = after;
    if (recent && x != null) {
      slots = RecentSet.slotsToRemember(x, remember);
      if (slots > RecentSet.MAX_SLOTS) {
        throw usage(
            "--after "
                + x
                + " at --remember "
                + remember
                + " needs more slots than a RecentSet holds ("
                + RecentSet.MAX_SLOTS
                + ")");
      }
    }
    Dedup dedup = new Dedup(null, null, null);
    if (window != null) {
      dedup =
          new Dedup(
              n == null
                  ? null
                  : dedup("dedup-exact", DedupSizing.exact(windowMillis, sliceCount, n), problems),
              n == null || e == null
                  ? null
                  : dedup(
                      "dedup-filter", DedupSizing.filter(windowMillis, sliceCount, n, e), problems),
              !recent
                  ? null
                  : dedup(
                      "dedup-recent",
                      DedupSizing.recent(windowMillis, sliceCount, slots),
                      problems));
    }
    Classic c = new Classic(classic, scalableClassic);
    if (!recent
        && classic == null
        && bloom == null
        && growth == null
        && cuckoo == null
        && dedup.exact() == null
        && dedup.filter() == null) {
      throw usage(String.join("; ", problems));
    }
    PrintStream o = new PrintStream(out, false, StandardCharsets.UTF_8);
    if (json) {
      o.println(json(c, bloom, growth, cuckoo, slots, dedup));
      for (String problem : problems) {
        err.println("idem size: " + problem);
      }
    } else {
      o.print(human(c, bloom, growth, cuckoo, slots, dedup, problems));
    }
    o.flush();
    return 0;
  }

  /** What a seen-cache cookie of this budget holds, measured on the codec itself. */
  record Cookie(
      int budget,
      double error,
      int tagBytes,
      int capacity,
      int fullChars,
      int agedMinItems,
      int agedMaxItems,
      double agedMeanItems,
      int guavaChars) {}

  /** Fills one cache with random items up to its capacity, then three times over (ageing). */
  static Cookie measureCookie(int budget, double error, int tagBytes) {
    SeenCacheCodec codec = SeenCacheCodec.forBudget(budget, error);
    if (tagBytes > 0) {
      codec = codec.signedWith(SigningKeys.withTag(tagBytes, new byte[32]));
    }
    SeenCache c = codec.newCache();
    SplittableRandom rnd = new SplittableRandom(34);
    byte[] item = new byte[16];
    int fullChars = 0;
    int min = Integer.MAX_VALUE;
    int max = 0;
    long sum = 0;
    int aged = 0;
    for (int i = 0; i < codec.capacity() * 4; i++) {
      rnd.nextBytes(item);
      c.add(item);
      if (i == codec.capacity() - 1) {
        fullChars = c.encodedLength();
      } else if (i >= codec.capacity() * 2) {
        min = Math.min(min, c.size());
        max = Math.max(max, c.size());
        sum += c.size();
        aged++;
      }
    }
    int guava = GuavaBloomFilter.create(codec.capacity(), error).toBase64().length();
    return new Cookie(
        budget, error, tagBytes, codec.capacity(), fullChars, min, max, (double) sum / aged, guava);
  }

  private int cookie(int budget) {
    ParseResult parsed = spec().commandLine().getParseResult();
    for (String option :
        new String[] {"--capacity", "--window", "--recent", "--expansion", "--bucket-size"}) {
      if (parsed.hasMatchedOption(option)) {
        throw usage(option + " does not apply with --cookie");
      }
    }
    Double e = error;
    if (e == null) {
      throw usage("--cookie needs --error");
    }
    if (!(e > 0 && e <= 0.5)) {
      throw usage("--error (" + e + ") must be in (0, 0.5] for a cookie");
    }
    checkRange("--cookie", budget, 8, SeenCacheCodec.MAX_BUDGET);
    if (tag != 0) {
      checkRange("--tag", tag, 10, 32);
    }
    Cookie c;
    try {
      c = measureCookie(budget, e, tag);
    } catch (IllegalArgumentException ex) {
      throw usage(ex.getMessage());
    }
    PrintStream o = new PrintStream(out, false, StandardCharsets.UTF_8);
    if (json) {
      JsonWriter w = new JsonWriter().beginObject().key("cookie").beginObject();
      w.field("budget", c.budget()).field("error", c.error()).field("tagBytes", c.tagBytes());
      w.field("capacity", c.capacity()).field("fullChars", c.fullChars());
      w.field("agedMinItems", c.agedMinItems()).field("agedMaxItems", c.agedMaxItems());
      w.field("agedMeanItems", c.agedMeanItems());
      w.field("guavaChars", c.guavaChars());
      o.println(w.endObject().endObject());
    } else {
      o.printf(
          "Seen-cache cookie of at most %,d characters at %s%s:%n",
          c.budget(),
          Text.decimal(c.error() * 100, 6) + " %",
          c.tagBytes() > 0 ? ", signed (" + c.tagBytes() + "-byte tag)" : ", unsigned");
      o.printf("  capacity        %,d items%n", c.capacity());
      o.printf("  when full       %,d characters%n", c.fullChars());
      o.printf(
          "  once it ages    keeps %,d to %,d items (mean %,.0f), the newest always%n",
          c.agedMinItems(), c.agedMaxItems(), c.agedMeanItems());
      o.printf(
          "  Guava writeTo   %,d characters of base64 for the same %,d items%n",
          c.guavaChars(), c.capacity());
    }
    o.flush();
    return 0;
  }

  /** The table if DEDUP.RESERVE would make it; null, with the server's reason, if not. */
  private static @Nullable Params dedup(String type, Params p, List<String> problems) {
    String bad = DedupSizing.check(p);
    if (bad != null) {
      problems.add(type + ": " + bad);
      return null;
    }
    return p;
  }

  private void checkRange(String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw usage(option + " (" + value + ") must be in [" + min + ", " + max + "]");
    }
  }

  private void validate() {
    ParseResult parsed = spec().commandLine().getParseResult();
    if (capacity != null && error == null && window == null) {
      throw usage("--capacity needs --error or --window");
    }
    if (error != null && capacity == null) {
      throw usage("--error needs --capacity");
    }
    for (String option : new String[] {"--expansion", "--bucket-size", "--max-iterations"}) {
      if (parsed.hasMatchedOption(option) && capacity == null) {
        throw usage(option + " applies only with --capacity");
      }
      if (parsed.hasMatchedOption(option) && error == null) {
        throw usage(option + " applies only with --error");
      }
    }
    Integer s = slices;
    if (s != null && window == null) {
      throw usage("--slices applies only with --window");
    }
    String w = window;
    if (w != null) {
      try {
        windowMillis = DedupSizing.windowMillis(w);
      } catch (IllegalArgumentException ex) {
        throw usage("--window (" + w + "): " + ex.getMessage());
      }
      if (capacity == null && !recent) {
        throw usage("--window needs --capacity or --recent");
      }
      sliceCount = s != null ? s : DedupSizing.defaultSlices(windowMillis);
      // The window and slices alone, as DEDUP.RESERVE checks them.
      String bad = DedupSizing.check(DedupSizing.exact(windowMillis, sliceCount, 1));
      if (bad != null) {
        throw usage("--slices (" + sliceCount + "): " + bad);
      }
    }
    if (recent && after == null) {
      throw usage("--recent needs --after");
    }
    for (String option : new String[] {"--after", "--remember"}) {
      if (parsed.hasMatchedOption(option) && !recent) {
        throw usage(option + " applies only with --recent");
      }
    }
    if (capacity == null && !recent) {
      throw usage("give --capacity N --error E, or --recent --after X, or both");
    }
    Long n = capacity;
    if (n != null && n < 1) {
      throw usage("--capacity (" + n + ") must be >= 1");
    }
    Double e = error;
    if (e != null && !(e > 0 && e < 1)) {
      throw usage("--error (" + e + ") must be in (0, 1)");
    }
    checkRange("--expansion", expansion, 1, ScalableBloomFilter.MAX_EXPANSION);
    checkRange("--bucket-size", bucketSize, 1, CuckooFilter.MAX_BUCKET_SIZE);
    checkRange("--max-iterations", maxIterations, 1, CuckooFilter.MAX_ITERATIONS);
    Long x = after;
    if (x != null && x < 1) {
      throw usage("--after (" + x + ") must be >= 1");
    }
    if (!(remember > 0 && remember < 1)) {
      throw usage("--remember (" + remember + ") must be in (0, 1)");
    }
  }

  /** Layers until their capacities add up to GROWTH_SHOWN x capacity, or one cannot be made. */
  Growth growth(long n, double e) {
    List<Layer> layers = new ArrayList<>();
    long totalCapacity = 0;
    long totalBytes = 0;
    for (int i = 0; i < ScalableBloomFilter.MAX_LAYERS; i++) {
      BloomFilter.Sizing s;
      try {
        s = ScalableBloomFilter.layerSizing(n, e, expansion, true, i);
      } catch (IllegalArgumentException ex) {
        return new Growth(layers, "layer " + i + " cannot be made: " + ex.getMessage());
      }
      totalCapacity += s.capacity();
      totalBytes += s.bytes();
      layers.add(new Layer(i, s, totalCapacity, totalBytes));
      if ((double) totalCapacity >= (double) GROWTH_SHOWN * n) {
        return new Growth(layers, null);
      }
    }
    return new Growth(layers, "a filter has at most " + ScalableBloomFilter.MAX_LAYERS + " layers");
  }

  private String json(
      Classic classic,
      BloomFilter.@Nullable Sizing bloom,
      @Nullable Growth growth,
      CuckooFilter.@Nullable Sizing cuckoo,
      long slots,
      Dedup dedup) {
    JsonWriter w = new JsonWriter().beginObject();
    double bound = lowerBound();
    classicJson(w, "classic", classic.nonScaling(), bound);
    classicJson(w, "scalable-classic", classic.scaling(), bound);
    if (bloom != null) {
      w.key("bloom").beginObject();
      w.field("capacity", bloom.capacity()).field("error", bloom.errorRate());
      w.field("bits", bloom.bits()).field("bytes", bloom.bytes());
      w.field("bitsPerItem", bloom.bitsPerItem()).field("hashes", bloom.hashes());
      w.field("blocks", bloom.blocks()).field("expectedRate", bloom.expectedRate());
      w.field("lowerBoundBitsPerItem", bound);
      w.endObject();
    }
    if (growth != null) {
      BloomFilter.Sizing first = growth.layers().getFirst().sizing();
      w.key("scalable-bloom").beginObject();
      w.field("capacity", first.capacity()).field("error", errorOrZero());
      w.field("expansion", expansion);
      // What the filter allocates when made: its first layer.
      w.field("bits", first.bits()).field("bytes", first.bytes());
      w.field("bitsPerItem", first.bitsPerItem()).field("hashes", first.hashes());
      w.field("lowerBoundBitsPerItem", bound);
      w.key("layers").beginArray();
      for (Layer layer : growth.layers()) {
        BloomFilter.Sizing s = layer.sizing();
        w.beginObject();
        w.field("layer", layer.index());
        w.field("capacity", s.capacity()).field("error", s.errorRate());
        w.field("bits", s.bits()).field("bytes", s.bytes());
        w.field("bitsPerItem", s.bitsPerItem()).field("hashes", s.hashes());
        w.field("cumulativeCapacity", layer.totalCapacity());
        w.field("cumulativeBytes", layer.totalBytes());
        w.endObject();
      }
      w.endArray();
      w.endObject();
    }
    if (cuckoo != null) {
      w.key("cuckoo").beginObject();
      w.field("capacity", cuckoo.capacity()).field("error", errorOrZero());
      w.field("bits", cuckoo.bits()).field("bytes", cuckoo.bytes());
      w.field("bitsPerItem", cuckoo.bitsPerItem());
      w.field("fingerprintBits", cuckoo.fingerprintBits());
      w.field("bucketSize", cuckoo.bucketSize()).field("buckets", cuckoo.buckets());
      w.field("slots", cuckoo.buckets() * cuckoo.bucketSize());
      w.field("maxIterations", maxIterations);
      w.field("loadAtCapacity", cuckoo.loadAtCapacity());
      w.field("expectedRate", cuckoo.expectedRate());
      w.field("lowerBoundBitsPerItem", bound);
      w.endObject();
    }
    Long x = after;
    if (recent && x != null) {
      w.key("recent").beginObject();
      w.field("after", x).field("remember", remember).field("slots", slots);
      w.field("bits", slots * 128).field("bytes", slots * 16);
      w.field("bitsPerItem", slots * 128.0 / x);
      w.field("rememberProbability", RecentSet.rememberProbability(slots, x));
      w.endObject();
    }
    Params exact = dedup.exact();
    if (exact != null) {
      w.key("dedup-exact").beginObject();
      dedupFields(w, exact);
      w.endObject();
    }
    Params filter = dedup.filter();
    if (filter != null) {
      w.key("dedup-filter").beginObject();
      w.field("error", filter.errorRate());
      dedupFields(w, filter);
      w.field("lowerBoundBitsPerItem", bound);
      w.endObject();
    }
    Params recentTable = dedup.recent();
    if (recentTable != null && x != null) {
      long bytes = DedupSizing.bytes(recentTable);
      w.key("dedup-recent").beginObject();
      w.field("windowMillis", recentTable.windowMillis()).field("slices", recentTable.slices());
      w.field("liveSlices", DedupSizing.maxLiveSlices(recentTable));
      w.field("after", x).field("remember", remember).field("slots", recentTable.slots());
      w.field("bytesPerSlot", DedupSizing.RECENT_SLOT_BYTES);
      w.field("bits", bytes * 8).field("bytes", bytes);
      w.field("bitsPerItem", bytes * 8.0 / x);
      w.field("maxSlots", DedupSizing.MAX_SLOTS);
      w.endObject();
    }
    return w.endObject().toString();
  }

  /** A classic filter (its first link if it scales), as RedisBloom sizes it. */
  private static void classicJson(
      JsonWriter w, String key, RedisBloomChain.@Nullable Sizing cs, double bound) {
    if (cs == null) {
      return;
    }
    w.key(key).beginObject();
    w.field("capacity", cs.capacity()).field("error", cs.errorRate());
    w.field("bits", cs.bits()).field("bytes", cs.bytes());
    w.field("bitsPerItem", cs.bitsPerItem()).field("hashes", cs.hashes());
    w.field("expectedRate", classicRate(cs));
    w.field("lowerBoundBitsPerItem", bound);
    w.endObject();
  }

  /** An EXACT or FILTER table: its slices and the memory of their filters. */
  private static void dedupFields(JsonWriter w, Params p) {
    long bytes = DedupSizing.bytes(p);
    w.field("capacity", p.capacity()).field("windowMillis", p.windowMillis());
    w.field("slices", p.slices()).field("liveSlices", DedupSizing.maxLiveSlices(p));
    w.field("sliceCapacity", DedupSizing.sliceCapacity(p));
    w.field("sliceErrorRate", DedupSizing.sliceErrorRate(p));
    w.field("sliceFilter", DedupSizing.sliceFilter(p));
    w.field("sliceBytes", DedupSizing.sliceBytes(p));
    w.field("bits", bytes * 8).field("bytes", bytes);
    w.field("bitsPerItem", bytes * 8.0 / p.capacity());
  }

  private String human(
      Classic classic,
      BloomFilter.@Nullable Sizing bloom,
      @Nullable Growth growth,
      CuckooFilter.@Nullable Sizing cuckoo,
      long slots,
      Dedup dedup,
      List<String> problems) {
    StringBuilder s = new StringBuilder();
    List<String> notes = new ArrayList<>();
    Text.Table t =
        new Text.Table(
            "lrrrrrr", "type", "bits", "bytes", "size", "bits/item", "x bound", "hashes");
    Long n = capacity;
    double bound = lowerBound();
    if (n != null && error != null) {
      s.append("capacity ")
          .append(n)
          .append(", error ")
          .append(Text.decimal(errorOrZero(), 6))
          .append(": lower bound log2(1/E) = ")
          .append(Text.fixed2(bound))
          .append(" bits per item\n");
    }
    String w = window;
    if (w != null) {
      Params any = DedupSizing.exact(windowMillis, sliceCount, 1);
      // The window as given ("24h", not "1d"); plain seconds with their unit.
      s.append("dedup table: window ")
          .append(w.chars().allMatch(Character::isDigit) ? w + "s" : w)
          .append(" in ")
          .append(sliceCount)
          .append(" slices of ")
          .append(duration(windowMillis / sliceCount))
          .append(", up to ")
          .append(DedupSizing.maxLiveSlices(any))
          .append(" live");
      if (n != null) {
        s.append("; ").append(n).append(" claims per window");
      }
      s.append('\n');
    }
    if (!s.isEmpty()) {
      s.append('\n');
    }
    RedisBloomChain.@Nullable Sizing cs = classic.nonScaling();
    RedisBloomChain.@Nullable Sizing scs = classic.scaling();
    if (cs != null && scs != null) {
      row(t, "classic", cs.bits(), cs.bytes(), cs.bitsPerItem(), bound, cs.hashes());
      row(t, "scalable-classic", scs.bits(), scs.bytes(), scs.bitsPerItem(), bound, scs.hashes());
      notes.add(
          "classic: RedisBloom's layout, the server's default (bf-layout classic); rate at"
              + " capacity "
              + Text.decimal(classicRate(cs), 4));
      notes.add("scalable-classic: its first layer, at error " + Text.decimal(scs.errorRate(), 6));
    }
    if (bloom != null) {
      row(t, "bloom", bloom.bits(), bloom.bytes(), bloom.bitsPerItem(), bound, bloom.hashes());
      notes.add(
          "bloom: the blocked layout (bf-layout blocked, and idem uniq's filter), "
              + bloom.blocks()
              + " blocks of 512 bits; rate at capacity "
              + Text.decimal(bloom.expectedRate(), 3));
    }
    if (growth != null) {
      BloomFilter.Sizing first = growth.layers().getFirst().sizing();
      row(
          t,
          "scalable-bloom",
          first.bits(),
          first.bytes(),
          first.bitsPerItem(),
          bound,
          first.hashes());
      notes.add(
          "scalable-bloom: its first layer, at error "
              + Text.decimal(first.errorRate(), 6)
              + "; the layers it adds are below");
    }
    if (cuckoo != null) {
      row(t, "cuckoo", cuckoo.bits(), cuckoo.bytes(), cuckoo.bitsPerItem(), bound, -1);
      notes.add(
          "cuckoo: "
              + cuckoo.fingerprintBits()
              + "-bit fingerprints, "
              + cuckoo.buckets()
              + " buckets of "
              + cuckoo.bucketSize()
              + "; load "
              + Text.decimal(cuckoo.loadAtCapacity(), 3)
              + " at capacity; rate "
              + Text.decimal(cuckoo.expectedRate(), 3));
    }
    Long x = after;
    if (recent && x != null) {
      row(t, "recent", slots * 128, slots * 16, slots * 128.0 / x, 0, -1);
      notes.add(
          "recent: "
              + slots
              + " slots of 16 bytes; an item is still recognised after "
              + x
              + " further distinct items with probability >= "
              + Text.decimal(remember, 6)
              + (slots > RecentSet.MAX_SLOTS
                  ? "; more than one RecentSet holds (" + RecentSet.MAX_SLOTS + ")"
                  : ""));
    }
    Params exact = dedup.exact();
    if (exact != null && n != null) {
      long bytes = DedupSizing.bytes(exact);
      row(t, "dedup-exact", bytes * 8, bytes, bytes * 8.0 / n, 0, -1);
      notes.add(
          "dedup-exact: the in-memory index, "
              + sliceFilters(exact)
              + "; the claims live on disk, about 64 to a RocksDB row, each its id and owner"
              + " (measured bytes per id: BENCHMARKS.md)");
    }
    Params filter = dedup.filter();
    if (filter != null && n != null) {
      long bytes = DedupSizing.bytes(filter);
      row(t, "dedup-filter", bytes * 8, bytes, bytes * 8.0 / n, bound, -1);
      notes.add(
          "dedup-filter: "
              + sliceFilters(filter)
              + ": a claim is checked against every live slice, so each gets E / "
              + DedupSizing.maxLiveSlices(filter)
              + " and together they stay within E");
    }
    Params recentTable = dedup.recent();
    if (recentTable != null && x != null) {
      long bytes = DedupSizing.bytes(recentTable);
      row(t, "dedup-recent", bytes * 8, bytes, bytes * 8.0 / x, 0, -1);
      notes.add(
          "dedup-recent: "
              + recentTable.slots()
              + " slots of "
              + DedupSizing.RECENT_SLOT_BYTES
              + " bytes (a 16-byte id digest, a 4-byte owner hash and a 4-byte slice), allocated"
              + " when the table is made; a dedup table holds at most "
              + DedupSizing.MAX_SLOTS
              + " slots");
    }
    s.append(t.render()).append('\n');
    for (String note : notes) {
      s.append(note).append('\n');
    }
    for (String problem : problems) {
      s.append("cannot be made: ").append(problem).append('\n');
    }
    if (growth != null) {
      s.append("\nscalable-bloom layers, expansion ")
          .append(expansion)
          .append(", until ")
          .append(GROWTH_SHOWN)
          .append(" x capacity:\n");
      Text.Table layers =
          new Text.Table(
              "rrrrrrrrr",
              "layer",
              "capacity",
              "error",
              "bits",
              "bytes",
              "hashes",
              "total capacity",
              "total bytes",
              "total size");
      for (Layer layer : growth.layers()) {
        BloomFilter.Sizing l = layer.sizing();
        layers.row(
            Integer.toString(layer.index()),
            Long.toString(l.capacity()),
            Text.decimal(l.errorRate(), 6),
            Long.toString(l.bits()),
            Long.toString(l.bytes()),
            Integer.toString(l.hashes()),
            Long.toString(layer.totalCapacity()),
            Long.toString(layer.totalBytes()),
            Text.bytes(layer.totalBytes()));
      }
      s.append(layers.render());
      if (growth.stoppedBecause() != null) {
        s.append("stops there: ").append(growth.stoppedBecause()).append('\n');
      }
    }
    return s.toString();
  }

  /** "9 live slices' bloom filters of 360000000 claims at 0.01, 498 MiB each". */
  private static String sliceFilters(Params p) {
    return DedupSizing.maxLiveSlices(p)
        + " live slices' "
        + DedupSizing.sliceFilter(p)
        + " filters of "
        + DedupSizing.sliceCapacity(p)
        + " claims at "
        + Text.decimal(DedupSizing.sliceErrorRate(p), 3)
        + ", "
        + Text.bytes(DedupSizing.sliceBytes(p))
        + " each";
  }

  /** A duration in its largest whole unit, as DEDUP.RESERVE takes it: "3h", "450s", "1250ms". */
  static String duration(long millis) {
    long[] units = {86_400_000, 3_600_000, 60_000, 1000};
    String[] names = {"d", "h", "m", "s"};
    for (int i = 0; i < units.length; i++) {
      if (millis % units[i] == 0) {
        return millis / units[i] + names[i];
      }
    }
    return millis + "ms";
  }

  /** A table row; a bound of 0 or hashes of -1 print as "-" (they do not apply). */
  private static void row(
      Text.Table t,
      String type,
      long bits,
      long bytes,
      double bitsPerItem,
      double bound,
      int hashes) {
    t.row(
        type,
        Long.toString(bits),
        Long.toString(bytes),
        Text.bytes(bytes),
        Text.fixed2(bitsPerItem),
        bound > 0 ? Text.fixed2(bitsPerItem / bound) : "-",
        hashes >= 0 ? Integer.toString(hashes) : "-");
  }

  /** log2(1/E): the fewest bits per item any structure with false-positive rate E can use. */
  private double lowerBound() {
    Double e = error;
    return e == null ? 0 : -Math.log(e) / Math.log(2);
  }

  private double errorOrZero() {
    Double e = error;
    return e == null ? 0 : e;
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
}
