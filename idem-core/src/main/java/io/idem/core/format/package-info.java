/**
 * Family ids and the framed, checksummed, versioned binary format every structure is written in.
 */
@NullMarked
package io.idem.core.format;

import org.jspecify.annotations.NullMarked;
