package io.idem.server.commands;

import io.idem.server.dispatch.CommandRegistry;
import io.idem.server.dispatch.Config;
import io.idem.server.dispatch.Dispatcher;
import io.idem.server.dispatch.ServerContext;
import io.idem.server.dispatch.Session;
import io.idem.server.dispatch.Stats;
import io.idem.server.engine.Engine;
import io.idem.server.reply.Replies;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A server without a network for handler tests: every command family, an in-memory engine, one
 * session. Commands go through the real dispatcher, so arity, auth and flags are checked too.
 */
final class Harness implements ServerContext {

  final Engine engine;
  final Config config = Config.defaults();
  final CommandRegistry commands = Commands.registry();
  final Stats stats = new Stats();
  final List<Session> sessions = new ArrayList<>();
  final Dispatcher dispatcher = new Dispatcher(this);
  final Session session = Session.detached(1);
  final AtomicInteger saves = new AtomicInteger();
  final AtomicBoolean shutdownRequested = new AtomicBoolean();

  /** Why the journal cannot be written, or null: what a test sets to fail it. */
  volatile @org.jspecify.annotations.Nullable String journalFailure;

  Harness() {
    this(System::currentTimeMillis);
  }

  /** A harness whose engine reads the time from {@code clock} (millis since the epoch). */
  Harness(java.util.function.LongSupplier clock) {
    engine = new Engine(io.idem.server.engine.Journal.none(), 1, clock);
    sessions.add(session);
  }

  /** Runs a command given as words (UTF-8). */
  Reply call(String... words) {
    return dispatcher.dispatch(session, Command.of(words));
  }

  /** Runs a command with binary arguments. */
  Reply call(byte[]... args) {
    return dispatcher.dispatch(session, new Command(args));
  }

  /** The reply rendered by {@link Replies#show}: {@code (integer) 1}, {@code (error) ERR x}. */
  String show(String... words) {
    return Replies.show(call(words));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public @org.jspecify.annotations.Nullable String journalFailure() {
    return journalFailure;
  }

  @Override
  public Engine engine() {
    return engine;
  }

  @Override
  public Config config() {
    return config;
  }

  @Override
  public CommandRegistry commands() {
    return commands;
  }

  @Override
  public Collection<Session> sessions() {
    return sessions;
  }

  @Override
  public Stats stats() {
    return stats;
  }

  @Override
  public long startMillis() {
    return 0;
  }

  @Override
  public void save() {
    saves.incrementAndGet();
  }

  @Override
  public boolean saveInBackground() {
    saves.incrementAndGet();
    return true;
  }

  @Override
  public long lastSaveSeconds() {
    return 0;
  }

  @Override
  public void shutdown() {
    shutdownRequested.set(true);
  }
}
