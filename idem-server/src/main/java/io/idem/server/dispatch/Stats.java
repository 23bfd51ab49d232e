package io.idem.server.dispatch;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/** Counters INFO stats, INFO commandstats and the metrics endpoint report. */
public final class Stats {

  /** One command's counters. */
  public static final class CommandStats {
    public final LongAdder calls = new LongAdder();
    public final LongAdder micros = new LongAdder();
    public final LongAdder failed = new LongAdder();
    public final LongAdder rejected = new LongAdder();

    /** Microsecond latencies up to an hour, 2 significant digits: about 20 KB per command. */
    public final Histogram latencyMicros = new ConcurrentHistogram(3_600_000_000L, 2);
  }

  /** SLOWLOG's entries. */
  public final SlowLog slowLog = new SlowLog();

  /** LATENCY's events. */
  public final LatencyMonitor latency = new LatencyMonitor();

  public final LongAdder commandsProcessed = new LongAdder();
  public final LongAdder connectionsReceived = new LongAdder();
  public final LongAdder rejectedConnections = new LongAdder();
  public final LongAdder errorReplies = new LongAdder();
  public final LongAdder netInputBytes = new LongAdder();
  public final LongAdder netOutputBytes = new LongAdder();

  /** Clients closed for passing client-output-buffer-limit. */
  public final LongAdder outputBufferLimitDisconnections = new LongAdder();

  /** Clients closed because all clients' buffers together passed maxmemory-clients. */
  public final LongAdder evictedClients = new LongAdder();

  private final Map<String, CommandStats> commands = new ConcurrentHashMap<>();

  public CommandStats command(String name) {
    return commands.computeIfAbsent(name, n -> new CommandStats());
  }

  /** The commands called at least once, by name. */
  public Map<String, CommandStats> commands() {
    return Map.copyOf(commands);
  }

  public void reset() {
    commands.clear();
  }
}
