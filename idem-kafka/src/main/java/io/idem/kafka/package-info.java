/**
 * Dedup where the stream is: {@link io.idem.kafka.IdemDedup}, a Kafka Streams operator over core's
 * dedup table in a state store with a changelog ({@link io.idem.kafka.DedupStore}).
 */
@NullMarked
package io.idem.kafka;

import org.jspecify.annotations.NullMarked;
