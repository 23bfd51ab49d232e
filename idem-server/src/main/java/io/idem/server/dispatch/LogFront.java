package io.idem.server.dispatch;

import io.idem.server.cluster.ClusterLog;
import io.idem.server.reply.Reply;
import io.idem.server.request.Command;

/**
 * How a keyed write runs on a node with a log when it cannot go to the log as it is: a command that
 * waits (QUEUE.RESERVE's BLOCK) waits here, on the node its client is on, and writes to the log
 * only the records its tries make. The records are ordinary commands, applied by every node that
 * serves the slot.
 */
public interface LogFront {

  /** Whether the front runs this command (else it goes to the log as it is). */
  boolean takes(Command command);

  /** The command's reply, most often deferred: what it writes goes through {@code log}. */
  Reply front(Call call, ClusterLog log, int slot);
}
