package io.idem.kafka;

import java.time.Duration;
import java.util.List;

/**
 * A name's counts over the windows that end at a record's time, after the record: how many records
 * of the name in each window and, if the operator counts them, how many distinct members (an
 * estimate, HyperLogLog's). Window {@code i} of {@link #windows} has count {@code counts()[i]} and
 * distinct count {@code distinct()[i]}; a window reaching before what the table keeps is -1.
 */
public record WindowCounts(List<Duration> windows, long[] counts, double[] distinct) {

  /** The count of records of the name in {@code window}, which must be one of {@link #windows}. */
  public long count(Duration window) {
    return counts[index(window)];
  }

  /** The distinct members of the name in {@code window}; -1 if members are not counted. */
  public double distinct(Duration window) {
    return distinct.length == 0 ? -1 : distinct[index(window)];
  }

  private int index(Duration window) {
    int i = windows.indexOf(window);
    if (i < 0) {
      throw new IllegalArgumentException(window + " is not one of " + windows);
    }
    return i;
  }
}
