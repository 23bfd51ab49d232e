package io.idem.server.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.idem.server.commands.CuckooCodecTest.Logged;
import io.idem.server.commands.queue.JobQueue;
import io.idem.server.commands.queue.QueueCodec;
import io.idem.server.commands.queue.QueueProbe;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/**
 * The check queue tests share: the log alone, and a snapshot taken midway plus the operations after
 * it, give back the live queue byte for byte, its snapshot reads back as itself, and every cut of
 * it is refused.
 */
final class QueueReplay {

  private QueueReplay() {}

  /**
   * @param snapshot the queue's snapshot after its first {@code snapshotOps} operations
   * @param now the clock now: the queues are drained from then on
   * @return the live queue's snapshot
   */
  static byte[] check(JobQueue live, Logged logged, byte[] snapshot, int snapshotOps, long now)
      throws IOException {
    QueueCodec codec = QueueCodec.INSTANCE;
    byte[] bytes = CuckooCodecTest.written(codec, live);
    assertThat(CuckooCodecTest.written(codec, logged.replay(codec)))
        .as("the log replayed")
        .isEqualTo(bytes);
    JobQueue fromSnapshot = codec.read(new ByteArrayInputStream(snapshot), snapshot.length);
    for (CuckooCodecTest.Op op : logged.ops().subList(snapshotOps, logged.ops().size())) {
      codec.apply(fromSnapshot, op.op(), op.payload());
    }
    assertThat(CuckooCodecTest.written(codec, fromSnapshot))
        .as("a snapshot and the rest of the log")
        .isEqualTo(bytes);
    JobQueue read = codec.read(new ByteArrayInputStream(bytes), bytes.length);
    assertThat(CuckooCodecTest.written(codec, read)).as("the snapshot read back").isEqualTo(bytes);
    // Alike in what they do from here, not only in what they write.
    List<String> drained = QueueProbe.drain(logged.replay(codec), now);
    assertThat(QueueProbe.drain(fromSnapshot, now))
        .as("drained after a snapshot")
        .isEqualTo(drained);
    assertThat(QueueProbe.drain(read, now)).as("drained after a read").isEqualTo(drained);
    for (int cut = 0; cut < bytes.length; cut += Math.max(1, bytes.length / 300)) {
      byte[] part = Arrays.copyOf(bytes, cut);
      assertThatThrownBy(() -> codec.read(new ByteArrayInputStream(part), part.length))
          .as("a snapshot cut at %d", cut)
          .isInstanceOf(IOException.class);
    }
    return bytes;
  }
}
