package io.idem.server.command;

import io.idem.server.engine.Engine;
import java.util.Collection;

/**
 * What handlers may reach of the server. The network server implements it; handler tests use a
 * server with no network.
 */
public interface ServerContext {

  Engine engine();

  Config config();

  CommandRegistry commands();

  /** The sessions connected now (CLIENT LIST, CLIENT KILL, INFO clients). */
  Collection<Session> sessions();

  Stats stats();

  /** Millis since the epoch when the server started. */
  long startMillis();

  /** Takes a snapshot of every resident value now and truncates the log behind it (SAVE). */
  void save();

  /** Starts {@link #save} in the background; false if one is already running (BGSAVE). */
  boolean saveInBackground();

  /** Seconds since the epoch of the last completed snapshot (LASTSAVE). */
  long lastSaveSeconds();

  /** Stops the server gracefully after this reply (SHUTDOWN). */
  void shutdown();

  /** Why the log cannot be written, or null while it can: writes are refused then. */
  default @org.jspecify.annotations.Nullable String journalFailure() {
    return null;
  }
}
