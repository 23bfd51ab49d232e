/**
 * JMH benchmarks of Idem's hash and filters, each run beside its baseline (Guava, DataSketches,
 * zero-allocation-hashing), and {@link io.idem.bench.BloomAccuracy}, which measures memory and
 * false-positive rate. Run them with {@code scripts/bench-jmh.sh}.
 */
@NullMarked
package io.idem.bench;

import org.jspecify.annotations.NullMarked;
