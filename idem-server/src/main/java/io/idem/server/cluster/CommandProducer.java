package io.idem.server.cluster;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Writes commands into a cluster's topic from a program that is not Idem (a job loading a day of
 * events): each becomes a version-1 {@link CommandRecord} with the outside origin, produced to the
 * partition of its first key's slot, where every node that serves the slot applies it. The record's
 * timestamp is the time the command applies at; set it with {@link #record} and your own send for
 * old events.
 *
 * <p>Use a producer with {@code enable.idempotence=true} and {@code acks=all}, as Idem's nodes do,
 * so a retried send is not applied twice. Closing this closes the producer.
 */
public final class CommandProducer implements AutoCloseable {

  private final Producer<byte[], byte[]> producer;
  private final String topic;
  private final int partitions;

  /**
   * @param partitions the topic's partitions: the cluster's {@code cluster-partitions}
   */
  public CommandProducer(Producer<byte[], byte[]> producer, String topic, int partitions) {
    if (partitions < 1 || partitions > Slots.COUNT) {
      throw new IllegalArgumentException("partitions must be from 1 to 16384");
    }
    this.producer = producer;
    this.topic = topic;
    this.partitions = partitions;
  }

  /** Sends one command, its name first and its key second ({@code "BF.ADD", key, item}). */
  public Future<RecordMetadata> send(String... command) {
    return producer.send(record(null, List.of(utf8(List.of(command)))));
  }

  /** Sends a transaction: its commands, all with keys in one slot, applied as one. */
  public Future<RecordMetadata> sendTransaction(List<List<String>> commands) {
    List<List<byte[]>> bytes = new ArrayList<>(commands.size());
    for (List<String> c : commands) {
      bytes.add(utf8(c));
    }
    return producer.send(record(null, bytes));
  }

  /**
   * The record for one command (one list) or a transaction (several), at {@code timestamp} (null:
   * the producer's clock), for a caller that sends it itself.
   *
   * @throws IllegalArgumentException if a command has no key, or the keys are in different slots
   */
  public ProducerRecord<byte[], byte[]> record(Long timestamp, List<List<byte[]>> commands) {
    if (commands.isEmpty()) {
      throw new IllegalArgumentException("no command");
    }
    int slot = -1;
    for (List<byte[]> c : commands) {
      if (c.size() < 2) {
        throw new IllegalArgumentException("a command written to the log needs its key");
      }
      int s = Slots.of(c.get(1));
      if (slot >= 0 && s != slot) {
        throw new IllegalArgumentException("a transaction's keys must share one slot");
      }
      slot = s;
    }
    CommandRecord rec =
        commands.size() == 1
            ? CommandRecord.outside(commands.get(0))
            : CommandRecord.transaction(CommandRecord.OUTSIDE, 0, commands);
    return new ProducerRecord<>(
        topic, Slots.partition(slot, partitions), timestamp, commands.get(0).get(1), rec.encode());
  }

  private static List<byte[]> utf8(List<String> words) {
    List<byte[]> out = new ArrayList<>(words.size());
    for (String w : words) {
      out.add(w.getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  @Override
  public void close() {
    producer.close();
  }
}
