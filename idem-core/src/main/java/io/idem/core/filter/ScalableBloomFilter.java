package io.idem.core.filter;

import static io.idem.core.Checks.checkArgument;

import io.idem.core.format.FormatFamily;
import io.idem.core.format.FormatInput;
import io.idem.core.format.FormatOutput;
import io.idem.core.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A Bloom filter that grows by adding layers, with RedisBloom's semantics. Not thread-safe: the
 * caller holds the key's lock.
 */
public final class ScalableBloomFilter implements MembershipFilter, ScalableBloom {
  /*
   * Design: Almeida et al., "Scalable Bloom Filters" (2007), as RedisBloom's BF.* does it. Layer i
   * holds capacity * expansion^i items at error * 0.5^(i+1), so the compound rate over any number
   * of layers stays below the configured one: sum of error * 0.5^(i+1) < error (each layer's rate
   * has a floor of MIN_LAYER_ERROR, which only very many layers reach). A non-scaling
   * filter has one layer at the configured rate and refuses the item after its capacity.
   *
   * An add checks every layer, newest first, and adds only certainly-new items to the newest
   * layer, which is replaced by a new one once it holds its capacity: items counts new items only.
   */

  static final int FORMAT_VERSION = 1; // append-only; see FilterFormatTest
  public static final double DEFAULT_ERROR_RATE = 0.01;
  public static final long DEFAULT_CAPACITY = 100;
  public static final int DEFAULT_EXPANSION = 2;
  public static final double TIGHTENING_RATIO = 0.5;

  /** RedisBloom's bounds on EXPANSION. */
  public static final int MAX_EXPANSION = 32768;

  /** The most layers a filter grows to. */
  public static final int MAX_LAYERS = 1000;

  /**
   * The floor of a layer's rate. Halving forever would ask a layer for rates no 512-bit block
   * reaches in sane memory (below about 1e-38 the bits needed grow as 1/rate); with the floor the
   * compound rate is at most error + 1000 * 1e-15, and only past about 40 layers.
   */
  public static final double MIN_LAYER_ERROR = 1e-15;

  private final double errorRate;
  private final long initialCapacity;
  private final int expansion;
  private final boolean scaling;
  private final BloomFilter.Storage storage;
  private final List<BloomFilter> layers;

  private ScalableBloomFilter(
      double errorRate,
      long initialCapacity,
      int expansion,
      boolean scaling,
      BloomFilter.Storage storage,
      List<BloomFilter> layers) {
    this.errorRate = errorRate;
    this.initialCapacity = initialCapacity;
    this.expansion = expansion;
    this.scaling = scaling;
    this.storage = storage;
    this.layers = layers;
  }

  /** RedisBloom's defaults: capacity 100, error 0.01, expansion 2. */
  public static ScalableBloomFilter create() {
    return create(DEFAULT_CAPACITY, DEFAULT_ERROR_RATE, DEFAULT_EXPANSION);
  }

  /** A filter that grows by {@code expansion} times each time its newest layer fills: ALIGNED. */
  public static ScalableBloomFilter create(long capacity, double errorRate, int expansion) {
    return create(capacity, errorRate, expansion, BloomFilter.Storage.ALIGNED);
  }

  /** As {@link #create(long, double, int)}, with its layers kept as {@code storage} says. */
  public static ScalableBloomFilter create(
      long capacity, double errorRate, int expansion, BloomFilter.Storage storage) {
    checkArgument(
        expansion >= 1 && expansion <= MAX_EXPANSION,
        "expansion (%s) must be in [1, %s]",
        expansion,
        MAX_EXPANSION);
    BloomFilter.Sizing first = layerSizing(capacity, errorRate, expansion, true, 0);
    List<BloomFilter> layers = new ArrayList<>();
    layers.add(BloomFilter.create(first.capacity(), first.errorRate(), storage));
    return new ScalableBloomFilter(errorRate, capacity, expansion, true, storage, layers);
  }

  /** A single layer at {@code errorRate}; adding a new item past its capacity throws. ALIGNED. */
  public static ScalableBloomFilter createNonScaling(long capacity, double errorRate) {
    return createNonScaling(capacity, errorRate, BloomFilter.Storage.ALIGNED);
  }

  /** As {@link #createNonScaling(long, double)}, kept as {@code storage} says. */
  public static ScalableBloomFilter createNonScaling(
      long capacity, double errorRate, BloomFilter.Storage storage) {
    List<BloomFilter> layers = new ArrayList<>();
    layers.add(BloomFilter.create(capacity, errorRate, storage));
    return new ScalableBloomFilter(errorRate, capacity, 0, false, storage, layers);
  }

  /**
   * A filter of the given layers, oldest first, as a loader rebuilds one from a dump. {@code
   * expansion} 0 means non-scaling, which has exactly one layer. New layers take the first one's
   * storage.
   */
  public static ScalableBloomFilter ofLayers(
      double errorRate, long initialCapacity, int expansion, List<BloomFilter> layers) {
    checkArgument(errorRate > 0 && errorRate < 1, "error rate (%s) must be in (0, 1)", errorRate);
    checkArgument(
        initialCapacity >= 1 && initialCapacity <= 1L << 62,
        "initial capacity (%s) must be in [1, 2^62]",
        initialCapacity);
    checkArgument(
        expansion >= 0 && expansion <= MAX_EXPANSION,
        "expansion (%s) must be in [0, %s]",
        expansion,
        MAX_EXPANSION);
    checkArgument(
        !layers.isEmpty() && layers.size() <= MAX_LAYERS,
        "layers (%s) must be in [1, %s]",
        layers.size(),
        MAX_LAYERS);
    checkArgument(
        expansion != 0 || layers.size() == 1,
        "a non-scaling filter has one layer, not %s",
        layers.size());
    return new ScalableBloomFilter(
        errorRate,
        initialCapacity,
        expansion,
        expansion != 0,
        layers.get(0).storage(),
        new ArrayList<>(layers));
  }

  /** The capacity and rate of layer {@code i} (0-based) of a filter so configured. */
  public static BloomFilter.Sizing layerSizing(
      long capacity, double errorRate, int expansion, boolean scaling, int i) {
    if (!scaling) {
      checkArgument(i == 0, "a non-scaling filter has only layer 0, not %s", i);
      return BloomFilter.sizing(capacity, errorRate);
    }
    double layerCapacity = capacity * Math.pow(expansion, i);
    checkArgument(
        layerCapacity <= 1L << 62, "layer %s would hold %s items, too many", i, layerCapacity);
    double layerError = Math.max(MIN_LAYER_ERROR, errorRate * Math.pow(TIGHTENING_RATIO, i + 1));
    return BloomFilter.sizing((long) layerCapacity, layerError);
  }

  /**
   * Adds the item to the newest layer unless some layer may already hold it.
   *
   * @throws FilterFullException if the item is new and the filter is non-scaling and full, or
   *     cannot grow further
   */
  @Override
  public boolean add(long h1, long h2) {
    if (mightContain(h1, h2)) {
      return false;
    }
    BloomFilter current = layers.getLast();
    if (current.isFull()) {
      current = grow();
    }
    current.add(h1, h2);
    return true;
  }

  /**
   * Adds an item without first asking every layer whether it may be present: for a caller that has
   * just asked (a dedup table checks its filters for a whole batch at once) and holds the filter
   * exclusively, as this class expects (see {@link BloomFilter#addExclusive}). The item goes into
   * the newest layer, which grows as {@link #add} would. An item that was in fact present is set
   * again, which changes nothing but may count it twice.
   *
   * @throws FilterFullException as {@link #add}
   */
  public void addUnchecked(long h1, long h2) {
    BloomFilter current = layers.getLast();
    if (current.isFull()) {
      current = grow();
    }
    current.addExclusive(h1, h2);
  }

  /** Hashes the item with {@link Hash128}. */
  @Override
  public void hash(byte[] item, long[] pair) {
    new Hash128().hash(item).into(pair);
  }

  @Override
  public boolean needsNewLayer() {
    return layers.getLast().isFull();
  }

  @Override
  public long bytesOfNextLayer() {
    if (!needsNewLayer() || !scaling) {
      return 0;
    }
    try {
      return layerSizing(initialCapacity, errorRate, expansion, true, layers.size()).bytes();
    } catch (IllegalArgumentException e) {
      return Long.MAX_VALUE; // larger than any array: add() refuses it too
    }
  }

  @Override
  public void mightContainAll(long[] a, long[] b, int n, boolean[] found) {
    mightContainAll(a, b, n, found, new boolean[n]);
  }

  private BloomFilter grow() {
    if (!scaling) {
      throw new FilterFullException("non scaling filter is full");
    }
    if (layers.size() >= MAX_LAYERS) {
      throw new FilterFullException("filter reached its limit of " + MAX_LAYERS + " layers");
    }
    BloomFilter.Sizing s;
    try {
      s = layerSizing(initialCapacity, errorRate, expansion, true, layers.size());
    } catch (IllegalArgumentException e) {
      throw new FilterFullException("cannot add layer " + layers.size() + ": " + e.getMessage());
    }
    BloomFilter layer = BloomFilter.create(s.capacity(), s.errorRate(), storage);
    layers.add(layer);
    return layer;
  }

  @Override
  public boolean mightContain(long h1, long h2) {
    for (int i = layers.size() - 1; i >= 0; i--) {
      if (layers.get(i).mightContain(h1, h2)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Looks up {@code count} items at once: {@code out[i] = mightContain(h1[i], h2[i])}, each layer
   * asked for all of them in one {@link BloomFilter#mightContainAll}, which overlaps the items'
   * cache misses. {@code scratch} (at least {@code count} elements) holds a layer's answers when
   * there is more than one layer.
   */
  public void mightContainAll(long[] h1, long[] h2, int count, boolean[] out, boolean[] scratch) {
    Objects.checkFromIndexSize(0, count, Math.min(out.length, scratch.length));
    layers.get(0).mightContainAll(h1, h2, count, out);
    for (int l = 1; l < layers.size(); l++) {
      layers.get(l).mightContainAll(h1, h2, count, scratch);
      for (int i = 0; i < count; i++) {
        out[i] |= scratch[i];
      }
    }
  }

  @Override
  public boolean supports(Capability capability) {
    return false;
  }

  /** The sum of the layers' capacities, as BF.INFO reports it. */
  @Override
  public long capacity() {
    long sum = 0;
    for (BloomFilter layer : layers) {
      sum += layer.capacity();
    }
    return sum;
  }

  @Override
  public long itemCount() {
    long sum = 0;
    for (BloomFilter layer : layers) {
      sum += layer.itemCount();
    }
    return sum;
  }

  @Override
  public long sizeInBytes() {
    long sum = 0;
    for (BloomFilter layer : layers) {
      sum += layer.sizeInBytes();
    }
    return sum;
  }

  @Override
  public int layerCount() {
    return layers.size();
  }

  /** Layer {@code i}, oldest first. */
  public BloomFilter layer(int i) {
    return layers.get(i);
  }

  @Override
  public int expansion() {
    return expansion;
  }

  @Override
  public boolean isScaling() {
    return scaling;
  }

  public long initialCapacity() {
    return initialCapacity;
  }

  @Override
  public double configuredErrorRate() {
    return errorRate;
  }

  /** 1 - product over layers of (1 - that layer's current rate). */
  @Override
  public double estimatedFalsePositiveRate() {
    double pass = 1;
    for (BloomFilter layer : layers) {
      pass *= 1 - layer.estimatedFalsePositiveRate();
    }
    return 1 - pass;
  }

  @Override
  public String layoutName() {
    return "blocked";
  }

  /** RedisBloom's fields, in a blocked layer's terms: its hashes all land in one 64-byte block. */
  @Override
  public String describeLayer(int i) {
    BloomFilter l = layers.get(i);
    return "bytes:"
        + l.sizeInBytes()
        + " bits:"
        + l.bitSize()
        + " hashes:"
        + l.hashes()
        + " hashwidth:128 capacity:"
        + l.capacity()
        + " size:"
        + l.itemCount()
        + " ratio:"
        + RedisBloomChain.printfG(l.configuredErrorRate());
  }

  // ---- BF.SCANDUMP and BF.LOADCHUNK, in BloomDump's bytes

  @Override
  public byte[] dumpHeader() {
    return BloomDump.header(this);
  }

  @Override
  public DumpChunk dumpChunk(long iterator) throws BadDumpException {
    try {
      return BloomDump.chunk(this, iterator, BloomDump.MAX_CHUNK_WORDS);
    } catch (IOException e) {
      throw new BadDumpException(BloomDump.INVALID_ITERATOR, e.getMessage());
    }
  }

  @Override
  public void loadChunk(long iterator, byte[] data) throws BadDumpException {
    try {
      BloomDump.load(this, iterator, data, BloomDump.MAX_CHUNK_WORDS);
    } catch (IOException e) {
      throw new BadDumpException(BloomDump.BAD_DATA, e.getMessage());
    }
  }

  /**
   * The empty filter a header of {@link #dumpHeader} declares, its layers kept as {@code storage}
   * says: a recipe the caller trusts, so it asks no memory first (see {@link
   * ScalableBloom#fromHeader} for a client's header).
   *
   * @throws IOException naming the first field that is wrong
   */
  public static ScalableBloomFilter fromHeader(byte[] header, BloomFilter.Storage storage)
      throws IOException {
    return BloomDump.build(BloomDump.parseHeader(header), storage);
  }

  @Override
  public FormatFamily family() {
    return FormatFamily.SCALABLE_BLOOM;
  }

  /*
   * Scalable Bloom format, version 1: the frame of FormatInput, family 2, with this body:
   *
   * offset  size  field
   * 0       8     configured error rate, IEEE 754 double in (0, 1)
   * 8       8     initial capacity (>= 1)
   * 16      4     expansion (0 when non-scaling, else 1 .. 32768)
   * 20      2     layers (1 .. 1000)
   * 22      ...   each layer, oldest first, as the body of a Bloom filter version 1
   */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    FormatOutput f =
        FormatOutput.begin(out, FormatFamily.SCALABLE_BLOOM, FORMAT_VERSION, Hash128.FUNCTION_ID);
    f.writeDouble(errorRate);
    f.writeLong(initialCapacity);
    f.writeInt(expansion);
    f.writeShort(layers.size());
    for (BloomFilter layer : layers) {
      layer.writeBody(f);
    }
    f.finish();
  }

  /** Reads a filter written by {@link #writeTo}, of at most {@code maxBytes} bytes: ALIGNED. */
  public static ScalableBloomFilter readFrom(InputStream in, long maxBytes) throws IOException {
    return readFrom(in, maxBytes, BloomFilter.Storage.ALIGNED);
  }

  /** As {@link #readFrom(InputStream, long)}, its layers kept as {@code storage} says. */
  public static ScalableBloomFilter readFrom(
      InputStream in, long maxBytes, BloomFilter.Storage storage) throws IOException {
    FormatInput f =
        FormatInput.begin(
            in, FormatFamily.SCALABLE_BLOOM, FORMAT_VERSION, Hash128.FUNCTION_ID, maxBytes);
    double errorRate = f.readDouble();
    if (!(errorRate > 0 && errorRate < 1)) {
      throw FormatInput.invalid("scalable error rate", errorRate, "must be in (0, 1)");
    }
    long initialCapacity = f.readLong();
    if (initialCapacity < 1 || initialCapacity > 1L << 62) {
      throw FormatInput.invalid("scalable capacity", initialCapacity, "must be in [1, 2^62]");
    }
    int expansion = f.readInt();
    if (expansion < 0 || expansion > MAX_EXPANSION) {
      throw FormatInput.invalid("expansion", expansion, "must be in [0, " + MAX_EXPANSION + "]");
    }
    int count = f.readUnsignedShort();
    if (count < 1 || count > MAX_LAYERS) {
      throw FormatInput.invalid("layer count", count, "must be in [1, " + MAX_LAYERS + "]");
    }
    if (expansion == 0 && count != 1) {
      throw FormatInput.invalid("layer count", count, "must be 1 for a non-scaling filter");
    }
    List<BloomFilter> layers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      layers.add(BloomFilter.readBody(f, storage));
    }
    f.finish();
    return new ScalableBloomFilter(
        errorRate, initialCapacity, expansion, expansion != 0, storage, layers);
  }

  @Override
  public String toString() {
    return "ScalableBloomFilter{layers="
        + layers.size()
        + ", capacity="
        + capacity()
        + ", items="
        + itemCount()
        + "}";
  }
}
