package io.idem.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Waiters for the log: each runs once, whether the log gets past it or fails first. */
class DurabilityTest {

  /** Holds a registering waiter between its first look at the log and the waiter lock. */
  private static final class HeldAtRegister implements StoreFaults {
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void at(Step step) {
      if (step == Step.WAITER_REGISTER && reached.getCount() > 0) {
        reached.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  @Test
  void whenDurable_failureBetweenItsFirstLookAndItsRegistration_stillRunsTheWaiter()
      throws Exception {
    HeldAtRegister faults = new HeldAtRegister();
    Durability durability = new Durability(0, faults);
    CountDownLatch ran = new CountDownLatch(1);
    Thread waiter = Thread.ofPlatform().start(() -> durability.whenDurable(1, ran::countDown));
    assertThat(faults.reached.await(10, TimeUnit.SECONDS)).isTrue();

    // The failure wakes every registered waiter: this one is not registered yet.
    durability.fail("cannot write the log", new RuntimeException("injected"));
    faults.release.countDown();

    assertThat(ran.await(10, TimeUnit.SECONDS)).as("the waiter ran").isTrue();
    waiter.join();
  }

  @Test
  void whenDurable_logPassesBetweenItsFirstLookAndItsRegistration_stillRunsTheWaiter()
      throws Exception {
    HeldAtRegister faults = new HeldAtRegister();
    Durability durability = new Durability(0, faults);
    CountDownLatch ran = new CountDownLatch(1);
    Thread waiter = Thread.ofPlatform().start(() -> durability.whenDurable(1, ran::countDown));
    assertThat(faults.reached.await(10, TimeUnit.SECONDS)).isTrue();

    durability.advance(1);
    durability.runWaiters(); // finds no waiter: this one is not registered yet
    faults.release.countDown();

    assertThat(ran.await(10, TimeUnit.SECONDS)).as("the waiter ran").isTrue();
    waiter.join();
  }

  @Test
  void whenDurable_waitersBeforeTheLog_runWhenItPassesThem() {
    Durability durability = new Durability(0, StoreFaults.NONE);
    CountDownLatch first = new CountDownLatch(1);
    CountDownLatch second = new CountDownLatch(1);
    durability.whenDurable(1, first::countDown);
    durability.whenDurable(2, second::countDown);
    durability.advance(1);
    durability.runWaiters();
    assertThat(first.getCount()).isZero();
    assertThat(second.getCount()).as("not yet written").isOne();
    durability.advance(2);
    durability.runWaiters();
    assertThat(second.getCount()).isZero();
  }
}
