package io.idem.server.dispatch;

import io.idem.server.cluster.ClusterLog;
import io.idem.server.cluster.ClusterTopology;
import io.idem.server.cluster.Slots;
import io.idem.server.engine.Engine;
import io.idem.server.engine.WrongTypeException;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
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
    Config config = server.config();
    SlowLog slow = server.stats().slowLog;
    slow.slowerThan(config.getLong("slowlog-log-slower-than"));
    slow.maxLen(config.getInt("slowlog-max-len"));
    config.onChange("slowlog-log-slower-than", v -> slow.slowerThan(Long.parseLong(v)));
    config.onChange("slowlog-max-len", v -> slow.maxLen(Integer.parseInt(v)));
    LatencyMonitor latency = server.stats().latency;
    latency.threshold(config.getLong("latency-monitor-threshold"));
    config.onChange("latency-monitor-threshold", v -> latency.threshold(Long.parseLong(v)));
  }

  /** What runs at once inside MULTI; every other command is queued for EXEC. */
  private static final Set<String> RUN_IN_MULTI =
      Set.of("exec", "discard", "multi", "watch", "quit", "reset");

  public Reply dispatch(Session session, Command command) {
    Stats stats = server.stats();
    stats.commandsProcessed.increment();
    CommandSpec spec = server.commands().get(command.arg(0));
    if (spec == null) {
      stats.errorReplies.increment();
      refuseQueue(session);
      return new Reply.Error(Errors.unknownCommand(command));
    }
    Stats.CommandStats cs = stats.command(spec.name());
    String refusal = refusal(session, spec, command);
    if (refusal != null) {
      refuseQueue(session);
      return reject(stats, cs, refusal);
    }
    if (session.inMulti() && !RUN_IN_MULTI.contains(spec.name())) {
      session.queue(command);
      return QUEUED;
    }
    if (spec.name().equals("exec")) {
      return exec(session, cs);
    }
    ClusterLog clusterLog = server.clusterLog();
    if (clusterLog != null
        && !session.isApplier()
        && spec.has(CommandSpec.Flag.WRITE)
        && spec.firstKey() > 0) {
      int slot = Slots.of(command.arg(spec.firstKey()));
      LogFront front = spec.logFront();
      if (front != null && front.takes(command)) {
        return run(session, spec, command, cs, call -> front.front(call, clusterLog, slot));
      }
      // A write goes to the log; every node that serves its slot applies it from there, and the
      // reply is what this node's application computes (which counts the call).
      return new Reply.Deferred(clusterLog.submit(command, slot));
    }
    return run(session, spec, command, cs);
  }

  /** How the cluster log's tailer applies records: through this dispatcher, as {@code applier}. */
  public io.idem.server.cluster.RecordApplier recordApplier(Session applier) {
    return new io.idem.server.cluster.RecordApplier() {
      @Override
      public Reply apply(Command command) {
        return dispatch(applier, command);
      }

      @Override
      public int logSlot(Command command) {
        return Dispatcher.this.logSlot(command);
      }

      @Override
      public @Nullable List<byte[]> keysOf(List<Command> commands) {
        List<CommandSpec> specs = new ArrayList<>(commands.size());
        for (Command c : commands) {
          specs.add(server.commands().get(c.arg(0)));
        }
        return lockedKeys(commands, specs);
      }
    };
  }

  /**
   * The log partition a command from this session would be produced to (a keyed write on a node
   * with a log, outside a transaction), or -1. A connection lets such writes to one partition
   * follow each other without waiting: the partition keeps their order.
   */
  public int logLane(Session session, Command command) {
    ClusterLog clusterLog = server.clusterLog();
    ClusterTopology cluster = server.cluster();
    if (clusterLog == null || cluster == null || session.isApplier() || session.inMulti()) {
      return -1;
    }
    CommandSpec spec = server.commands().get(command.arg(0));
    if (spec == null
        || !spec.has(CommandSpec.Flag.WRITE)
        || spec.firstKey() <= 0
        || command.size() <= spec.firstKey()
        || spec.logFront() != null && spec.logFront().takes(command)) {
      return -1; // a command that waits holds the connection's later ones, as in Redis
    }
    return Slots.partition(Slots.of(command.arg(spec.firstKey())), cluster.partitions());
  }

  /**
   * The slot of a command the cluster's log may carry, or -1: a known keyed data command (a write
   * or a read, with its first key present), not one refused inside MULTI. The tailer skips records
   * holding anything else, so no record can stop a node or leave its session in a transaction.
   */
  public int logSlot(Command command) {
    CommandSpec spec = server.commands().get(command.arg(0));
    if (spec == null
        || spec.firstKey() <= 0
        || command.size() <= spec.firstKey()
        || spec.has(CommandSpec.Flag.NO_MULTI)
        || !(spec.has(CommandSpec.Flag.WRITE) || spec.has(CommandSpec.Flag.READONLY))) {
      return -1;
    }
    return Slots.of(command.arg(spec.firstKey()));
  }

  private static final Reply QUEUED = Reply.simple("QUEUED");
  private static final Reply WRONG_TYPE = Reply.error(Errors.WRONGTYPE);

  /** Why the command may not run now (Redis's order of checks), or null. */
  private @Nullable String refusal(Session session, CommandSpec spec, Command command) {
    if (!spec.arityAccepts(command.size())) {
      return Errors.wrongArity(spec.name());
    }
    if (!session.authenticated() && !spec.has(CommandSpec.Flag.NO_AUTH)) {
      return Errors.NOAUTH;
    }
    if (session.inMulti() && spec.has(CommandSpec.Flag.NO_MULTI)) {
      return "ERR Command not allowed inside a transaction";
    }
    ClusterTopology cluster = server.cluster();
    ClusterLog clusterLog = server.clusterLog();
    if (cluster != null && spec.firstKey() > 0) {
      // A node behind its log (catching up, or stopped) sends clients to a live replica.
      boolean behind = clusterLog != null && !session.isApplier() && !clusterLog.caughtUp();
      String redirect = redirect(cluster, spec, command, behind);
      if (redirect != null) {
        return redirect;
      }
    }
    if (clusterLog != null && !session.isApplier()) {
      if (spec.name().equals("watch")) {
        // A transaction is applied from the log, later and on every replica: no node can tell
        // whether a watched key changed between WATCH and that moment.
        return "ERR WATCH is not supported on a cluster node with a log (docs/cluster.md)";
      }
      if (spec.has(CommandSpec.Flag.WRITE) && spec.firstKey() <= 0) {
        // FLUSHALL and the like: a write without a key has no partition, so no log to go to.
        return "ERR "
            + spec.name().toUpperCase(java.util.Locale.ROOT)
            + " is not supported on a cluster node with a log (docs/cluster.md)";
      }
    }
    // The log's applier is never refused for memory: the node that took the write checked it, and a
    // record every replica applies cannot depend on one replica's memory.
    if (spec.has(CommandSpec.Flag.DENYOOM)
        && !session.isApplier()
        && server.engine().overMemoryLimit()) {
      return Errors.OOM;
    }
    String failure = server.journalFailure();
    if (failure != null && spec.has(CommandSpec.Flag.WRITE)) {
      if (session.isApplier()) {
        // The write is in the cluster's log already: other nodes apply it. Only this one cannot.
        return "ERR this node could not apply the write, its own log failed ("
            + failure
            + "); the write is in the cluster's log and the other nodes serving its slot apply it";
      }
      return "MISCONF Idem cannot write its log, so writes are refused: " + failure;
    }
    return null;
  }

  /**
   * In a cluster, Redis Cluster's answer for keys this node does not serve: CROSSSLOT when they are
   * in different slots, MOVED to the node that serves their slot; null when this node serves them.
   * Clients follow MOVED and refresh their slot map.
   */
  private static @Nullable String redirect(
      ClusterTopology cluster, CommandSpec spec, Command command, boolean behind) {
    int slot = -1;
    int last = spec.lastKey() < 0 ? command.size() + spec.lastKey() : spec.lastKey();
    int step = Math.max(1, spec.step());
    for (int k = spec.firstKey(); k <= last && k < command.size(); k += step) {
      int s = Slots.of(command.arg(k));
      if (slot >= 0 && s != slot) {
        return Errors.CROSSSLOT;
      }
      slot = s;
    }
    if (spec.has(CommandSpec.Flag.MOVABLEKEYS) && command.size() > 3) {
      // Both such commands (CMS.MERGE, TDIGEST.MERGE) read: destination numkeys source...; a bad
      // count is the handler's error to give.
      Long n = Parse.longOrNull(command.arg(2));
      for (int k = 3; n != null && k < 3 + n && k < command.size(); k++) {
        if (Slots.of(command.arg(k)) != slot) {
          return Errors.CROSSSLOT;
        }
      }
    }
    if (slot < 0) {
      return null;
    }
    ClusterTopology.Node acting = cluster.nodeOfSlot(slot);
    if (cluster.servesSlot(slot)
        && (!behind || acting == cluster.self() || !cluster.actingIsLive(slot))) {
      return null; // behind, with no live node to send the client to, this one answers
    }
    return "MOVED " + slot + " " + acting.address();
  }

  private static void refuseQueue(Session session) {
    if (session.inMulti()) {
      session.refuseQueue();
    }
  }

  /** Runs one command's handler, counts it, and makes its reply wait for what it wrote or saw. */
  private Reply run(Session session, CommandSpec spec, Command command, Stats.CommandStats cs) {
    return run(session, spec, command, cs, spec.handler());
  }

  private Reply run(
      Session session, CommandSpec spec, Command command, Stats.CommandStats cs, Handler handler) {
    long start = System.nanoTime();
    session.touch(spec.name(), System.currentTimeMillis());
    Reply reply;
    try {
      reply = handler.handle(new Call(session, command, server));
    } catch (CommandException e) {
      reply = e.toReply();
    } catch (WrongTypeException e) {
      reply = WRONG_TYPE;
    } catch (RuntimeException | OutOfMemoryError e) {
      // A bug, not bad input: say so, keep the connection and the server.
      log.error("command {} failed", spec.name(), e);
      reply = Reply.err("internal error in '" + spec.name() + "': " + e.getClass().getSimpleName());
    }
    if (spec.has(CommandSpec.Flag.WRITE)
        || spec.has(CommandSpec.Flag.READONLY) && server.journalFailure() == null) {
      // Whatever this command saw or changed is in the journal at or before lastSeq: the reply
      // waits for it, so an acknowledged add is never lost, even one another client made, and a
      // crash never takes back what a read showed. Once the log has failed nothing more becomes
      // durable, and reads answer from memory as it is (docs/durability.md).
      session.requireDurable(server.engine().journal().lastSeq());
    }
    long micros = count(cs, reply, start);
    server.stats().slowLog.maybeLog(micros, command, session);
    server
        .stats()
        .latency
        .record(spec.has(CommandSpec.Flag.FAST) ? "fast-command" : "command", micros / 1000);
    return reply;
  }

  /** Counts a call and its time; the time in microseconds. */
  private long count(Stats.CommandStats cs, Reply reply, long startNanos) {
    long micros = (System.nanoTime() - startNanos) / 1000;
    cs.calls.increment();
    cs.micros.add(micros);
    cs.latencyMicros.recordValue(Math.min(micros, 3_600_000_000L));
    if (reply instanceof Reply.Error) {
      cs.failed.increment();
      server.stats().errorReplies.increment();
    }
    return micros;
  }

  /**
   * On a node with a log, a transaction that writes goes to the log as one record: its commands
   * must all have keys, in one slot, as Redis Cluster asks. Null when it only reads: it runs here
   * and now.
   */
  private @Nullable Reply execThroughLog(
      ClusterLog clusterLog, List<Command> queued, List<CommandSpec> specs) {
    int slot = -1;
    boolean writes = false;
    boolean keyless = false;
    for (int i = 0; i < queued.size(); i++) {
      CommandSpec spec = specs.get(i);
      Command c = queued.get(i);
      writes |= spec.has(CommandSpec.Flag.WRITE);
      if (spec.firstKey() <= 0 || c.size() <= spec.firstKey()) {
        keyless = true;
        continue;
      }
      int s = Slots.of(c.arg(spec.firstKey()));
      if (slot >= 0 && s != slot) {
        return new Reply.Error(
            "EXECABORT Transaction discarded because of: CROSSSLOT Keys in request don't hash to"
                + " the same slot");
      }
      slot = s;
    }
    if (!writes) {
      return null;
    }
    if (keyless) {
      return new Reply.Error(
          "EXECABORT Transaction discarded because of: a transaction that writes on a cluster node"
              + " with a log holds only commands with keys (docs/cluster.md)");
    }
    return new Reply.Deferred(clusterLog.submitTransaction(queued, slot));
  }

  /**
   * EXEC: runs the queued commands as one, under the locks of every key they name (of every key,
   * when one names keys its positions do not tell), with their changes journaled as one command: no
   * other client sees or makes a change in between, and after a crash all of them are in the log or
   * none. The reply waits until all are durable.
   */
  private Reply exec(Session session, Stats.CommandStats cs) {
    long start = System.nanoTime();
    session.touch("exec", System.currentTimeMillis());
    if (!session.inMulti()) {
      return reject(server.stats(), cs, "ERR EXEC without MULTI");
    }
    boolean refused = session.queueRefused();
    var watched = java.util.Map.copyOf(session.watched());
    List<Command> queued = session.endMulti();
    if (refused) {
      return reject(
          server.stats(), cs, "EXECABORT Transaction discarded because of previous errors.");
    }
    List<CommandSpec> specs = new ArrayList<>(queued.size());
    for (Command c : queued) {
      specs.add(server.commands().get(c.name()));
    }
    // Checked again at EXEC, as Redis does: memory or the log may have failed since queueing.
    for (int i = 0; i < queued.size(); i++) {
      String refusal = refusal(session, specs.get(i), queued.get(i));
      if (refusal != null) {
        return reject(server.stats(), cs, "EXECABORT Transaction discarded because of: " + refusal);
      }
    }
    ClusterLog clusterLog = server.clusterLog();
    if (clusterLog != null && !session.isApplier()) {
      Reply logged = execThroughLog(clusterLog, queued, specs);
      if (logged instanceof Reply.Error abort) {
        return reject(server.stats(), cs, abort.text());
      }
      if (logged != null) {
        return logged;
      }
    }
    List<byte[]> keys = lockedKeys(queued, specs);
    if (keys != null) {
      for (java.nio.ByteBuffer k : watched.keySet()) {
        keys.add(k.array());
      }
    }
    Engine engine = server.engine();
    List<Reply> replies = new ArrayList<>(queued.size());
    try (Engine.Transaction tx = engine.transaction(keys)) {
      for (var w : watched.entrySet()) {
        if (engine.touchedSince(w.getKey().array(), w.getValue())) {
          count(cs, NULL_ARRAY, start);
          return NULL_ARRAY; // a watched key changed: nothing runs
        }
      }
      for (int i = 0; i < queued.size(); i++) {
        CommandSpec spec = specs.get(i);
        Reply r = run(session, spec, queued.get(i), server.stats().command(spec.name()));
        if (r instanceof Reply.Deferred later) {
          // A command that would wait (a blocking reserve with nothing due) does not inside a
          // transaction, as Redis's blocking commands do not: its reply is nil.
          later.future().cancel(false);
          r = NULL_ARRAY;
        }
        replies.add(r);
      }
    }
    session.touch("exec", System.currentTimeMillis()); // CLIENT LIST's cmd=, not the last inside
    // The changes got their numbers when the transaction closed: wait for all of them.
    session.requireDurable(engine.journal().lastSeq());
    Reply reply = Reply.array(replies);
    count(cs, reply, start);
    return reply;
  }

  private static final Reply NULL_ARRAY = new Reply.NullArray();

  /**
   * The keys the queued commands name, or null when one may touch keys its positions do not tell
   * (no positions while it reads or writes the keyspace, or sources after a count): then the
   * transaction locks every key.
   */
  private static @Nullable List<byte[]> lockedKeys(List<Command> queued, List<CommandSpec> specs) {
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < queued.size(); i++) {
      Command c = queued.get(i);
      CommandSpec spec = specs.get(i);
      if (spec.has(CommandSpec.Flag.MOVABLEKEYS)) {
        return null;
      }
      if (spec.firstKey() == 0) {
        // FLUSHALL, DBSIZE, SCAN, and containers whose subcommands name a key (MEMORY USAGE):
        // a key locked out of stripe order could deadlock with another transaction.
        return null;
      }
      int last = spec.lastKey() < 0 ? c.size() + spec.lastKey() : spec.lastKey();
      int step = Math.max(1, spec.step());
      for (int k = spec.firstKey(); k <= last && k < c.size(); k += step) {
        keys.add(c.arg(k));
      }
    }
    return keys;
  }

  private static Reply reject(Stats stats, Stats.CommandStats cs, String text) {
    cs.rejected.increment();
    stats.errorReplies.increment();
    return new Reply.Error(text);
  }
}
