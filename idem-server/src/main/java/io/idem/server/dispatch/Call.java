package io.idem.server.dispatch;

import io.idem.server.engine.Engine;
import io.idem.server.request.Command;

/** One command being run: who asked, what they asked, and the server that answers. */
public record Call(Session session, Command command, ServerContext server) {

  public Engine engine() {
    return server.engine();
  }

  public byte[] arg(int i) {
    return command.arg(i);
  }

  public int argc() {
    return command.size();
  }

  /** Whether argument i is the keyword, ignoring case. */
  public boolean is(int i, String keyword) {
    return command.is(i, keyword);
  }
}
