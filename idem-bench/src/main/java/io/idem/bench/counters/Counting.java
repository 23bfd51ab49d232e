package io.idem.bench.counters;

/** Counts the distinct (feature, bucket) counters a workload keeps, as either side keeps them. */
public final class Counting {
  private final LongSet seen = new LongSet();
  private final io.idem.core.hash.Hash128 hash = new io.idem.core.hash.Hash128();

  public void add(Events w, int i, long now, String[] names) {
    long t = w.time(i);
    w.features(i, names);
    long hour = Math.floorDiv(t, Events.HOUR);
    long minute = Math.floorDiv(t, Events.MINUTE);
    boolean minuteKept = (minute + 1) * Events.MINUTE > now - Events.MINUTE_RETENTION;
    for (String name : names) {
      hash.hash(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      long h = hash.h1();
      seen.add((h ^ hour * 31) | 1);
      if (minuteKept) {
        seen.add((h ^ (minute * 131 + 7)) | 1);
      }
    }
  }

  public long size() {
    return seen.size();
  }
}
