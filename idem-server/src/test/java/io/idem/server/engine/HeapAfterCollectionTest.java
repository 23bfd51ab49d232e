package io.idem.server.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The kept figure follows collections: what one keeps live counts, and goes once it is freed. */
class HeapAfterCollectionTest {

  private static final int BYTES = 64 << 20;

  @Test
  void followsWhatCollectionsLeaveLive() throws Exception {
    System.gc();
    Thread.sleep(200); // its notification
    long before = HeapAfterCollection.live();
    byte[][] held = new byte[BYTES >> 20][];
    for (int i = 0; i < held.length; i++) {
      held[i] = new byte[1 << 20];
    }
    System.gc();
    long holding = await(true, before + BYTES / 2);
    assertThat(holding).isGreaterThanOrEqualTo(before + BYTES / 2);
    assertThat(held[held.length - 1]).hasSize(1 << 20); // still live during the collection above
    held = null;
    System.gc();
    long after = await(false, holding - BYTES / 2);
    assertThat(after).isLessThanOrEqualTo(holding - BYTES / 2);
  }

  /**
   * Polls up to 10 s for the kept figure to reach {@code bound} (at least it, or at most it): the
   * notification comes after the collection, on another thread.
   */
  private static long await(boolean atLeast, long bound) throws InterruptedException {
    long live = HeapAfterCollection.live();
    for (int i = 0; i < 200 && (atLeast ? live < bound : live > bound); i++) {
      Thread.sleep(50);
      live = HeapAfterCollection.live();
    }
    return live;
  }
}
