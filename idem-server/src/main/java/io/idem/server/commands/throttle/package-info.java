/** Rate limiting commands: redis-cell's CL.THROTTLE. */
@NullMarked
package io.idem.server.commands.throttle;

import org.jspecify.annotations.NullMarked;
