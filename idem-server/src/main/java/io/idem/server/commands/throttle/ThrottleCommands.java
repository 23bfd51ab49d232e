package io.idem.server.commands.throttle;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/** Rate limiting: redis-cell's CL.THROTTLE on limiters (values of {@link ThrottleCodec}). */
public final class ThrottleCommands {

  private ThrottleCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command("cl.throttle", -5, new ClThrottleCommand())
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .build());
  }
}
