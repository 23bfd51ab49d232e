/**
 * The claim benchmark of {@link io.idem.bench.ClaimBench}: a deterministic Kafka-like workload of
 * UUID claims with duplicates, Tapjoy's Redis design as the baseline, Idem's batch claims, and the
 * small pipelined RESP2 client both are driven with.
 */
@NullMarked
package io.idem.bench.claims;

import org.jspecify.annotations.NullMarked;
