package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;

import io.idem.server.dispatch.Session;
import io.idem.server.reply.Replies;
import io.idem.server.request.Command;
import org.junit.jupiter.api.Test;

/** MULTI, EXEC, DISCARD, WATCH and UNWATCH through the dispatcher, with Redis's replies. */
class TransactionCommandsTest {

  private final Harness h = new Harness();
  private final Session other = Session.detached(2);

  private String byOther(String... words) {
    return Replies.show(h.dispatcher.dispatch(other, Command.of(words)));
  }

  @Test
  void exec_runsTheQueuedCommandsInOrder_andRepliesWithEachReply() {
    assertThat(h.show("MULTI")).isEqualTo("OK");
    assertThat(h.show("BF.ADD", "f", "a")).isEqualTo("QUEUED");
    assertThat(h.show("BF.ADD", "f", "a")).isEqualTo("QUEUED");
    assertThat(h.show("BF.EXISTS", "f", "a")).isEqualTo("QUEUED");
    assertThat(h.show("PING")).isEqualTo("QUEUED");
    assertThat(byOther("EXISTS", "f")).as("nothing ran yet").isEqualTo("(integer) 0");
    assertThat(h.show("EXEC")).isEqualTo("[(integer) 1, (integer) 0, (integer) 1, PONG]");
    assertThat(h.session.inMulti()).isFalse();
    assertThat(h.show("EXEC")).isEqualTo("(error) ERR EXEC without MULTI");
  }

  @Test
  void halfAPair_isRefusedWhileQueueing_asAnyWrongArity() {
    h.call("MULTI");
    assertThat(h.show("CMS.INITBYDIM", "m", "10", "2")).isEqualTo("QUEUED");
    assertThat(h.show("CMS.INCRBY", "m", "a", "1", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'cms.incrby' command");
    assertThat(h.show("PING", "a", "b"))
        .isEqualTo("(error) ERR wrong number of arguments for 'ping' command");
    assertThat(h.show("EXEC"))
        .isEqualTo("(error) EXECABORT Transaction discarded because of previous errors.");
    assertThat(h.show("EXISTS", "m")).isEqualTo("(integer) 0");
  }

  @Test
  void anErrorWhileQueueing_discardsTheTransactionAtExec() {
    h.call("MULTI");
    assertThat(h.show("BF.ADD", "f", "a")).isEqualTo("QUEUED");
    assertThat(h.show("NOSUCHCOMMAND", "x")).startsWith("(error) ERR unknown command");
    assertThat(h.show("BF.ADD", "f")).startsWith("(error) ERR wrong number of arguments");
    assertThat(h.show("EXEC"))
        .isEqualTo("(error) EXECABORT Transaction discarded because of previous errors.");
    assertThat(h.show("EXISTS", "f")).isEqualTo("(integer) 0");
  }

  @Test
  void anErrorWhileRunning_isOneReplyOfTheArray_andTheOthersRun() {
    h.call("CMS.INITBYDIM", "c", "10", "2");
    h.call("MULTI");
    h.call("BF.ADD", "c", "x"); // WRONGTYPE only when it runs
    h.call("BF.ADD", "f", "y");
    assertThat(h.show("EXEC"))
        .isEqualTo(
            "[(error) WRONGTYPE Operation against a key holding the wrong kind of value,"
                + " (integer) 1]");
  }

  @Test
  void discard_dropsTheQueue_andMisuseGetsRedisErrors() {
    assertThat(h.show("DISCARD")).isEqualTo("(error) ERR DISCARD without MULTI");
    h.call("MULTI");
    assertThat(h.show("MULTI")).isEqualTo("(error) ERR MULTI calls can not be nested");
    assertThat(h.show("WATCH", "f")).isEqualTo("(error) ERR WATCH inside MULTI is not allowed");
    h.call("BF.ADD", "f", "a");
    assertThat(h.show("DISCARD")).isEqualTo("OK");
    assertThat(h.show("EXISTS", "f")).isEqualTo("(integer) 0");
    assertThat(h.show("BF.ADD", "f", "a")).as("runs at once again").isEqualTo("(integer) 1");
  }

  @Test
  void watch_aKeyAnotherClientChanges_makesExecRunNothing() {
    h.call("BF.ADD", "f", "a");
    assertThat(h.show("WATCH", "f", "missing")).isEqualTo("OK");
    assertThat(byOther("BF.ADD", "f", "b")).isEqualTo("(integer) 1");
    h.call("MULTI");
    h.call("BF.ADD", "g", "x");
    assertThat(h.show("EXEC")).isEqualTo("(nil)");
    assertThat(h.show("EXISTS", "g")).isEqualTo("(integer) 0");
    // EXEC forgot the watches: the next transaction runs.
    h.call("MULTI");
    h.call("BF.ADD", "g", "x");
    assertThat(h.show("EXEC")).isEqualTo("[(integer) 1]");
  }

  @Test
  void watch_seesCreationDeletionExpiryAndRename_butNotAnUnchangingRead() {
    h.call("BF.ADD", "f", "a");
    String[][] changes = {
      {"BF.ADD", "new", "a"}, // a missing key created
      {"DEL", "f"},
      {"EXPIRE", "f", "100"},
      {"RENAME", "f", "moved"},
    };
    String[] watchedKey = {"new", "f", "f", "f"};
    for (int i = 0; i < changes.length; i++) {
      h.call("FLUSHALL");
      h.call("BF.ADD", "f", "a");
      h.call("WATCH", watchedKey[i]);
      byOther("BF.EXISTS", "f", "a"); // a read changes nothing
      byOther(changes[i]);
      h.call("MULTI");
      h.call("PING");
      assertThat(h.show("EXEC")).as(String.join(" ", changes[i])).isEqualTo("(nil)");
    }
    h.call("FLUSHALL");
    h.call("BF.ADD", "f", "a");
    h.call("WATCH", "f");
    byOther("BF.EXISTS", "f", "a");
    byOther("BF.ADD", "f", "a"); // already there: nothing changes
    h.call("MULTI");
    h.call("PING");
    assertThat(h.show("EXEC")).isEqualTo("[PONG]");
  }

  /** A key renamed away and back is a change, as Redis sees it (finding 13: EXEC ran). */
  @Test
  void watch_seesAKeyRenamedAwayAndBack() {
    h.call("BF.ADD", "f", "a");
    h.call("WATCH", "f");
    byOther("RENAME", "f", "g");
    byOther("RENAME", "g", "f");
    h.call("MULTI");
    h.call("PING");
    assertThat(h.show("EXEC")).isEqualTo("(nil)");
  }

  @Test
  void clientList_showsTheQueueAndTheWatchedKeys() {
    h.call("WATCH", "f", "g");
    h.call("MULTI");
    h.call("BF.ADD", "f", "a");
    assertThat(byOther("CLIENT", "LIST")).contains(" flags=x ").contains(" multi=1 watch=2 ");
    h.call("DISCARD");
    assertThat(byOther("CLIENT", "LIST")).contains(" flags=N ").contains(" multi=-1 watch=0 ");
  }

  @Test
  void unwatchAndDiscard_forgetTheWatchedKeys() {
    h.call("WATCH", "f");
    assertThat(h.show("UNWATCH")).isEqualTo("OK");
    byOther("BF.ADD", "f", "a");
    h.call("MULTI");
    h.call("PING");
    assertThat(h.show("EXEC")).isEqualTo("[PONG]");

    h.call("WATCH", "f");
    h.call("MULTI");
    h.call("DISCARD");
    byOther("BF.ADD", "f", "b");
    h.call("MULTI");
    h.call("PING");
    assertThat(h.show("EXEC")).isEqualTo("[PONG]");
  }

  @Test
  void exec_ofMergesAndKeyspaceCommands_locksEveryKey_andRuns() {
    h.call("CMS.INITBYDIM", "a", "10", "2");
    h.call("CMS.INITBYDIM", "b", "10", "2");
    h.call("MULTI");
    h.call("CMS.INCRBY", "a", "x", "3");
    h.call("CMS.MERGE", "b", "1", "a");
    h.call("DBSIZE");
    h.call("CMS.QUERY", "b", "x");
    assertThat(h.show("EXEC")).isEqualTo("[[(integer) 3], OK, (integer) 2, [(integer) 3]]");
  }
}
