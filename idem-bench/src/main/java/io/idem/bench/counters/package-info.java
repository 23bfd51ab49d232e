/**
 * Issue 5's counter benchmark: Smyte's first design (INCRBY and EXPIRE per time bucket on Redis,
 * MGET to read a window) beside Idem's COUNTER.* on the same events and queries.
 */
@NullMarked
package io.idem.bench.counters;

import org.jspecify.annotations.NullMarked;
