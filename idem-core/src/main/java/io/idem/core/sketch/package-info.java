/** Counting sketches: the count-min sketch. */
@NullMarked
package io.idem.core.sketch;

import org.jspecify.annotations.NullMarked;
