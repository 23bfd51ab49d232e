package io.idem.kafka;

import io.idem.core.dedup.DedupTable;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Builds a {@link DedupStore}. Its changelog is on by default and deletes records logged more than
 * two windows and a day ago (by the wall clock): a table needs no older operation to rebuild while
 * the stream runs no more than a window behind. Caching does not apply and is ignored.
 */
public final class DedupStoreBuilder implements StoreBuilder<DedupStore> {

  private final String name;
  private final DedupTable.Params params;
  private final long maxMemoryBytes;
  private final long checkpointMillis;
  private boolean logged = true;
  private final Map<String, String> logConfig = new HashMap<>();

  DedupStoreBuilder(
      String name, DedupTable.Params params, long maxMemoryBytes, long checkpointMillis) {
    this.name = name;
    this.params = params;
    this.maxMemoryBytes = maxMemoryBytes;
    this.checkpointMillis = checkpointMillis;
    logConfig.put("cleanup.policy", "delete");
    logConfig.put("retention.ms", Long.toString(2 * params.windowMillis() + 86_400_000L));
  }

  @Override
  public DedupStoreBuilder withCachingEnabled() {
    return this;
  }

  @Override
  public DedupStoreBuilder withCachingDisabled() {
    return this;
  }

  /** The changelog on, with these topic settings over the defaults. */
  @Override
  public DedupStoreBuilder withLoggingEnabled(Map<String, String> config) {
    logged = true;
    logConfig.putAll(config);
    return this;
  }

  /** No changelog: a store lost with its machine is empty again. */
  @Override
  public DedupStoreBuilder withLoggingDisabled() {
    logged = false;
    return this;
  }

  @Override
  public DedupStore build() {
    return new DedupStore(name, params, logged, maxMemoryBytes, checkpointMillis);
  }

  @Override
  public Map<String, String> logConfig() {
    return logConfig;
  }

  @Override
  public boolean loggingEnabled() {
    return logged;
  }

  @Override
  public String name() {
    return name;
  }
}
