package io.idem.server.dispatch;

import io.idem.server.reply.Reply;

/**
 * Thrown by a handler to answer with an error reply. It carries the whole reply text, code
 * included, so the texts Redis and RedisBloom clients match on stay in one place.
 */
public final class CommandException extends RuntimeException {

  private final String reply;

  public CommandException(String reply) {
    super(reply, null, false, false);
    this.reply = reply;
  }

  /** An {@code ERR}-coded error. */
  public static CommandException err(String message) {
    return new CommandException("ERR " + message);
  }

  public Reply.Error toReply() {
    return new Reply.Error(reply);
  }
}
