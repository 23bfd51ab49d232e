/**
 * What a structure kept in rows of a caller's store asks of that store: the changes it makes to its
 * rows ({@link io.idem.core.store.RowChange}), which the server journals with the operation that
 * made them, and which a Kafka Streams store can log to its changelog alike.
 */
@NullMarked
package io.idem.core.store;

import org.jspecify.annotations.NullMarked;
