/**
 * Windowed counting: exact counters in time buckets at several resolutions, kept in rows of a store
 * the caller provides, and expired by dropping whole ranges of rows.
 */
@NullMarked
package io.idem.core.window;

import org.jspecify.annotations.NullMarked;
