/**
 * Issue 45's benchmark: idempotency keys on Idem's IDEMKEY.* beside what people build on Redis (a
 * {@code SET NX} in-progress marker, a result key, duplicates that poll), driven by one
 * non-blocking client thread at a fixed rate of first requests and retries.
 */
@NullMarked
package io.idem.bench.idemkeys;

import org.jspecify.annotations.NullMarked;
