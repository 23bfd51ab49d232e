package io.idem.bench.counters;

import java.util.SplittableRandom;

/**
 * The workload: events spread evenly over the day before {@code end}, each with {@link #FEATURES}
 * features (an IP, an email, pairs of them…), one value per feature type drawn with weight about 1
 * / rank from {@code population} values, so a few values are hot and most are seen once or twice,
 * as the traffic of a fraud check. Deterministic for a seed.
 */
public final class Events {
  public static final int FEATURES = 30;
  public static final long MINUTE = 60_000;
  public static final long HOUR = 60 * MINUTE;
  public static final long DAY = 24 * HOUR;

  /** The resolutions both sides keep: minutes for 2 hours, hours for 8 days (Idem's default). */
  public static final long MINUTE_RETENTION = 2 * HOUR;

  public static final long HOUR_RETENTION = 8 * DAY;

  final int events;
  final int population;
  final long end;
  final long seed;

  public Events(int events, int population, long end, long seed) {
    this.events = events;
    this.population = population;
    this.end = end;
    this.seed = seed;
  }

  public int events() {
    return events;
  }

  public int population() {
    return population;
  }

  public long time(int i) {
    return end - DAY + (long) i * DAY / events;
  }

  /** The features of event {@code i}, into {@code names}. */
  public void features(int i, String[] names) {
    featuresFrom(new SplittableRandom(seed * 1_000_003 + i), names);
  }

  /** The features of a query's event: drawn as events' are, from another stream. */
  public void queryFeatures(int j, String[] names) {
    featuresFrom(new SplittableRandom(~seed * 7_777_777 + j), names);
  }

  private void featuresFrom(SplittableRandom r, String[] names) {
    for (int k = 0; k < FEATURES; k++) {
      long v = (long) Math.exp(r.nextDouble() * Math.log(population));
      names[k] = "f" + k + ":" + v;
    }
  }
}
