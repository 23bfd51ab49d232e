package io.idem.server.commands.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.commands.queue.JobQueue.Backoff;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** A job id from a log record or a snapshot is held to what QUEUE.ADD accepts. */
class QueueCodecInputTest {

  private static byte[] addRecord(byte[] id) {
    return new QueueCodec.Op()
        .u64(1000)
        .bytes(id)
        .bytes(new byte[] {'p'})
        .i32(0)
        .u64(1000)
        .i32(1)
        .backoff(Backoff.NONE)
        .u64(0)
        .done();
  }

  @Test
  void anAddRecordWithAnIdLongerThanQueueAddTakes_isRefused_andChangesNothing() throws Exception {
    JobQueue q = new JobQueue();
    byte[] longest = new byte[QueueHandlers.MAX_ID_BYTES];
    QueueCodec.INSTANCE.apply(q, QueueCodec.OP_ADD, addRecord(longest));
    assertThat(q.job(longest)).isNotNull();
    for (int length : new int[] {0, QueueHandlers.MAX_ID_BYTES + 1, 40_000}) {
      assertThatThrownBy(
              () -> QueueCodec.INSTANCE.apply(q, QueueCodec.OP_ADD, addRecord(new byte[length])))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("a job id of " + length + " bytes");
    }
    assertThat(q.counts(1000)).containsExactly(1, 0, 0, 0);
  }
}
