package io.idem.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MonotonicClockTest {

  /** A source stepped back holds the clock at its latest reading until it passes it again. */
  @Test
  void aSourceSteppedBack_holdsTheClockUntilItPassesIt() {
    AtomicLong source = new AtomicLong(1_000);
    MonotonicClock clock = new MonotonicClock(source::get);
    assertThat(clock.getAsLong()).isEqualTo(1_000);
    source.set(1_005);
    assertThat(clock.getAsLong()).isEqualTo(1_005);
    source.set(-2_895); // an NTP step of almost four seconds back
    assertThat(clock.getAsLong()).isEqualTo(1_005);
    source.set(1_004);
    assertThat(clock.getAsLong()).isEqualTo(1_005);
    source.set(1_006);
    assertThat(clock.getAsLong()).isEqualTo(1_006);
  }

  /** Read from many threads while the source jumps about, each thread's readings never go back. */
  @Test
  void readFromManyThreads_eachThreadsReadingsNeverGoBack() throws Exception {
    AtomicLong source = new AtomicLong();
    MonotonicClock clock = new MonotonicClock(source::get);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < 4; t++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    long last = Long.MIN_VALUE;
                    for (int i = 0; i < 200_000; i++) {
                      long now = clock.getAsLong();
                      if (now < last) {
                        failures.add(new AssertionError(now + " after " + last));
                        return;
                      }
                      last = now;
                    }
                  }));
    }
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 100_000; i++) {
      source.set(random.nextInt(1_000_000)); // forward and back at random
    }
    for (Thread t : threads) {
      t.join();
    }
    assertThat(failures).isEmpty();
  }
}
