package io.idem.server.dispatch;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redis's latency monitor: for each kind of event ("command", "fast-command"), the times it took at
 * least {@code latency-monitor-threshold} milliseconds (0: off), at most one sample a second (the
 * second's worst) and the newest 160 seconds with one, with the latest and the worst ever.
 */
public final class LatencyMonitor {

  static final int HISTORY = 160;

  /** One second's worst. */
  public record Sample(long unixSeconds, long millis) {}

  /** An event's samples, oldest first, and its worst ever. */
  public static final class Event {
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private long max;

    public synchronized List<Sample> history() {
      return new ArrayList<>(samples);
    }

    public synchronized Sample latest() {
      return samples.peekLast();
    }

    public synchronized long max() {
      return max;
    }

    private synchronized void add(long unixSeconds, long millis) {
      Sample last = samples.peekLast();
      max = Math.max(max, millis);
      if (last != null && unixSeconds < last.unixSeconds()) {
        return; // a clock that stepped back: the worst counts, the history stays in order
      }
      if (last != null && last.unixSeconds() == unixSeconds) {
        if (millis > last.millis()) {
          samples.pollLast();
          samples.addLast(new Sample(unixSeconds, millis));
        }
      } else {
        samples.addLast(new Sample(unixSeconds, millis));
        if (samples.size() > HISTORY) {
          samples.pollFirst();
        }
      }
    }
  }

  private final Map<String, Event> events = new TreeMap<>();
  private volatile long thresholdMillis;

  void threshold(long millis) {
    thresholdMillis = millis;
  }

  /** Samples an event that took {@code millis}, if the monitor is on and it is over the line. */
  public void record(String event, long millis) {
    record(event, millis, System.currentTimeMillis() / 1000);
  }

  void record(String event, long millis, long unixSeconds) {
    long t = thresholdMillis;
    if (t == 0 || millis < t) {
      return;
    }
    Event e;
    synchronized (this) {
      e = events.computeIfAbsent(event, k -> new Event());
    }
    e.add(unixSeconds, millis);
  }

  /** The events with samples, by name. */
  public synchronized Map<String, Event> events() {
    return new TreeMap<>(events);
  }

  /** Forgets the named events (all when none is named); how many there were. */
  public synchronized int reset(List<String> names) {
    if (names.isEmpty()) {
      int n = events.size();
      events.clear();
      return n;
    }
    int n = 0;
    for (String name : names) {
      if (events.remove(name) != null) {
        n++;
      }
    }
    return n;
  }
}
