/** Idem's core: data structures and their formats, with no I/O beyond streams and no threads. */
@NullMarked
package io.idem.core;

import org.jspecify.annotations.NullMarked;
