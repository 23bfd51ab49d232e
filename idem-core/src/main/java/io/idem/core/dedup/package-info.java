/**
 * Deduplication tables over time slices: exact (ids and their owners, in rows of a caller's store),
 * filter (probabilistic) and recent (a bounded slot table). Moving here from the server (issue 44)
 * so that a Kafka Streams store can hold one too.
 */
@NullMarked
package io.idem.core.dedup;

import org.jspecify.annotations.NullMarked;
