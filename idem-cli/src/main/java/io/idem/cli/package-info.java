/** The {@code idem} command line: picocli commands over idem-core, with injectable streams. */
@NullMarked
package io.idem.cli;

import org.jspecify.annotations.NullMarked;
