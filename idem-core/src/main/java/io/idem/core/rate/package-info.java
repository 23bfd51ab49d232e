/** Rate limiting: the generic cell rate algorithm (GCRA), as redis-cell's CL.THROTTLE runs it. */
@NullMarked
package io.idem.core.rate;

import org.jspecify.annotations.NullMarked;
