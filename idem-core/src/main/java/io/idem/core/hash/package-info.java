/** One 128-bit hash of a byte slice, with no allocation per call. */
@NullMarked
package io.idem.core.hash;

import org.jspecify.annotations.NullMarked;
