package io.idem.server.command;

import io.idem.server.reply.Reply;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks what every command shares (existence, arity, authentication, memory) once, in Redis's
 * order, then runs the handler and counts it. Never throws: every failure becomes an error reply.
 */
public final class Dispatcher {

  private static final Logger log = LoggerFactory.getLogger(Dispatcher.class);

  private final ServerContext server;

  public Dispatcher(ServerContext server) {
    this.server = server;
  }

  public Reply dispatch(Session session, Command command) {
    Stats stats = server.stats();
    stats.commandsProcessed.increment();
    CommandSpec spec = server.commands().get(command.name());
    if (spec == null) {
      stats.errorReplies.increment();
      return new Reply.Error(Errors.unknownCommand(command));
    }
    Stats.CommandStats cs = stats.command(spec.name());
    if (!spec.arityAccepts(command.size())) {
      return reject(stats, cs, Errors.wrongArity(spec.name()));
    }
    if (!session.authenticated() && !spec.has(CommandSpec.Flag.NO_AUTH)) {
      return reject(stats, cs, Errors.NOAUTH);
    }
    if (spec.has(CommandSpec.Flag.DENYOOM) && server.engine().overMemoryLimit()) {
      return reject(stats, cs, Errors.OOM);
    }
    String failure = server.journalFailure();
    if (failure != null && spec.has(CommandSpec.Flag.WRITE)) {
      return reject(
          stats, cs, "MISCONF Idem cannot write its log, so writes are refused: " + failure);
    }
    long start = System.nanoTime();
    session.touch(spec.name(), System.currentTimeMillis());
    Reply reply;
    try {
      reply = spec.handler().handle(new Call(session, command, server));
    } catch (CommandException e) {
      reply = e.toReply();
    } catch (RuntimeException | OutOfMemoryError e) {
      // A bug, not bad input: say so, keep the connection and the server.
      log.error("command {} failed", spec.name(), e);
      reply = Reply.err("internal error in '" + spec.name() + "': " + e.getClass().getSimpleName());
    }
    if (spec.has(CommandSpec.Flag.WRITE)
        || spec.has(CommandSpec.Flag.READONLY) && failure == null) {
      // Whatever this command saw or changed is in the journal at or before lastSeq: the reply
      // waits for it, so an acknowledged add is never lost, even one another client made, and a
      // crash never takes back what a read showed. Once the log has failed nothing more becomes
      // durable, and reads answer from memory as it is (docs/durability.md).
      session.requireDurable(server.engine().journal().lastSeq());
    }
    long micros = (System.nanoTime() - start) / 1000;
    cs.calls.increment();
    cs.micros.add(micros);
    cs.latencyMicros.recordValue(Math.min(micros, 3_600_000_000L));
    if (reply instanceof Reply.Error) {
      cs.failed.increment();
      stats.errorReplies.increment();
    }
    return reply;
  }

  private static Reply reject(Stats stats, Stats.CommandStats cs, String text) {
    cs.rejected.increment();
    stats.errorReplies.increment();
    return new Reply.Error(text);
  }
}
