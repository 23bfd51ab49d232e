package io.idem.server.cluster;

import io.idem.server.reply.Reply;
import io.idem.server.request.Command;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the log's tailer needs of the command layer to apply a record's commands on this node. */
public interface RecordApplier {

  /** Runs one command of a record, as a client's would be run, and returns its reply. */
  Reply apply(Command command);

  /**
   * The slot of a command the log may carry (a keyed data command), or -1: anything else in a
   * record is skipped, so no record can stop a node or leave its session in a transaction.
   */
  int logSlot(Command command);

  /**
   * The keys running {@code commands} locks, or null when one of them may lock keys its arguments
   * do not name (then every key is locked). The tailer holds them until the record's changes are
   * numbered, so no snapshot images a change before its number.
   */
  @Nullable List<byte[]> keysOf(List<Command> commands);
}
