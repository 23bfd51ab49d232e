/**
 * Deduplication tables over time slices: exact (ids and their owners, in rows of a caller's store),
 * filter (probabilistic) and recent (a bounded slot table), one class a mode behind {@link
 * io.idem.core.dedup.DedupTable}. A table reads rows from and records its operations to a {@link
 * io.idem.core.dedup.ClaimStore}: the server's engine and log, or a Kafka Streams state store and
 * its changelog.
 */
@NullMarked
package io.idem.core.dedup;

import org.jspecify.annotations.NullMarked;
