package io.idem.server.dispatch;

import io.idem.server.reply.Reply;

/**
 * A handler with its arguments' syntax (in {@link Syntax}'s notation) beside it, so COMMAND DOCS
 * can describe the arguments from the same line that registers the command.
 */
public record Documented(String syntax, Handler handler) implements Handler {

  public Documented {
    Syntax.parse(syntax); // fails at start-up, not at the first COMMAND DOCS
  }

  public static Documented doc(String syntax, Handler handler) {
    return new Documented(syntax, handler);
  }

  @Override
  public Reply handle(Call call) {
    return handler.handle(call);
  }
}
