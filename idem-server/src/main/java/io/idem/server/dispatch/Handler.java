package io.idem.server.dispatch;

import io.idem.server.reply.Reply;

/**
 * Runs one command. Handlers parse their typed arguments, call the engine and return a reply value;
 * they never touch a channel, so tests call them directly. Errors are thrown as {@link
 * CommandException}. Arity, authentication and flags were checked by the dispatcher.
 */
@FunctionalInterface
public interface Handler {
  Reply handle(Call call);
}
