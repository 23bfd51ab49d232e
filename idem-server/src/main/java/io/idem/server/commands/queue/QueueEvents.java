package io.idem.server.commands.queue;

import io.idem.server.dispatch.Call;
import io.idem.server.dispatch.CommandException;
import io.idem.server.dispatch.Errors;
import io.idem.server.dispatch.Parse;
import io.idem.server.engine.Waits;
import io.idem.server.reply.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * QUEUE.EVENTS: what happened to a queue's jobs, read from the ring the queue keeps (QUEUE.CONFIG
 * EVENTS n), by a cursor, optionally waiting for more. The ring is part of the queue's state: every
 * replica and every restart holds the same events with the same ids, so a reader that reconnects,
 * or moves to another node, goes on from the last id it read.
 */
final class QueueEvents {

  private QueueEvents() {}

  /** Readers waiting for events at once, on one server. */
  static final Waits.Limit BLOCKED =
      new Waits.Limit(10_000, "too many blocked event readers (10000); retry without BLOCK");

  /**
   * QUEUE.EVENTS key [FROM id | FROM $] [COUNT n] [BLOCK duration]: the events after {@code id}
   * (default: every one kept; $: only new ones), oldest first, at most COUNT (default 100, at most
   * 10,000), each [id, time ms, type, job id, detail]. With BLOCK and none yet, waits for one (nil
   * when the time is up). An error if events after {@code id} were dropped from the ring.
   */
  static Reply events(Call call) {
    Long from = null;
    boolean latest = false;
    int count = 100;
    long block = -1;
    for (int i = 2; i < call.argc(); i++) {
      if (call.is(i, "FROM") && i + 1 < call.argc()) {
        if (call.is(++i, "$")) {
          latest = true;
        } else {
          from = Parse.longOrNull(call.arg(i));
          if (from == null || from < 0) {
            throw CommandException.err("FROM is an event id, or $");
          }
        }
      } else if (call.is(i, "COUNT") && i + 1 < call.argc()) {
        Long c = Parse.longOrNull(call.arg(++i));
        if (c == null || c < 1 || c > 10_000) {
          throw CommandException.err("COUNT is an integer from 1 to 10000");
        }
        count = c.intValue();
      } else if (call.is(i, "BLOCK") && i + 1 < call.argc()) {
        block = call.is(i + 1, "0") ? 0 : QueueHandlers.duration(call, i + 1);
        i++;
      } else {
        throw new CommandException(Errors.SYNTAX);
      }
    }
    byte[] key = call.arg(1).clone();
    io.idem.server.engine.Engine engine = call.engine();
    long seen = block < 0 ? 0 : engine.waits().seen(key, null);
    long cursor =
        latest
            ? engine.read(key, e -> QueueHandlers.queue(e).nextEventId() - 1)
            : from == null ? -1 : from;
    int n = count;
    Reply first = engine.read(key, e -> read(QueueHandlers.queue(e), cursor, n));
    if (first != null || block < 0) {
      return first == null ? Reply.array(List.of()) : first;
    }
    long after = cursor < 0 ? 0 : cursor;
    return engine
        .waits()
        .await(
            BLOCKED,
            key,
            null,
            seen,
            Long.MAX_VALUE,
            block,
            () -> Reply.NULL_ARRAY,
            wanted -> {
              Reply r = engine.read(key, e -> read(QueueHandlers.queue(e), after, n));
              return r == null
                  ? new Waits.Outcome.Later(Long.MAX_VALUE)
                  : new Waits.Outcome.Answer(r);
            });
  }

  /** The events after {@code cursor} (-1: every one kept), or null if there are none yet. */
  private static Reply read(JobQueue q, long cursor, int count) {
    java.util.Collection<JobQueue.Event> ring = q.events();
    if (cursor >= 0 && !ring.isEmpty()) {
      long oldest = ring.iterator().next().id();
      if (cursor + 1 < oldest) {
        throw CommandException.err(
            "events before "
                + oldest
                + " are gone (the queue keeps the last "
                + q.eventCapacity()
                + "): read from FROM "
                + (oldest - 1)
                + " on");
      }
    }
    List<Reply> out = new ArrayList<>();
    for (JobQueue.Event e : ring) {
      if (e.id() <= cursor) {
        continue;
      }
      if (out.size() == count) {
        break;
      }
      out.add(
          Reply.array(
              Reply.integer(e.id()),
              Reply.integer(e.time()),
              Reply.bulk(e.type().text()),
              Reply.bulk(e.jobId()),
              Reply.bulk(e.detail())));
    }
    return out.isEmpty() ? null : Reply.array(out);
  }
}
