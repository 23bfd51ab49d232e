package io.idem.server.commands.queue;

import static io.idem.server.dispatch.CommandSpec.Flag.DENYOOM;
import static io.idem.server.dispatch.CommandSpec.Flag.FAST;
import static io.idem.server.dispatch.CommandSpec.Flag.READONLY;
import static io.idem.server.dispatch.CommandSpec.Flag.WRITE;
import static io.idem.server.dispatch.CommandSpec.command;
import static io.idem.server.dispatch.Documented.doc;

import io.idem.server.dispatch.CommandSpec;
import java.util.List;

/** Idem's QUEUE.* commands on durable job queues (values of {@link QueueCodec}). */
public final class QueueCommands {

  private QueueCommands() {}

  /** The family's registration list. */
  public static List<CommandSpec> specs() {
    return List.of(
        command(
                "queue.add",
                -3,
                doc(
                    "key payload [DELAY duration | AT unix-ms] [PRIORITY n] [ID id [UNIQUE"
                        + " duration]] [ATTEMPTS n] [BACKOFF FIXED|EXPONENTIAL duration [MAX"
                        + " duration]]",
                    QueueHandlers::add))
            .flags(WRITE, DENYOOM, FAST)
            .key()
            .build(),
        command(
                "queue.madd",
                -4,
                doc(
                    "key [defaults] JOB payload [options] [JOB payload [options] ...]",
                    QueueHandlers::madd))
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command(
                "queue.flow",
                -5,
                doc(
                    "key payload [options] [ONCHILDFAIL FAIL|HOLD|IGNORE] CHILD payload [PARENT id]"
                        + " [options] [ONCHILDFAIL ...] [CHILD ...]",
                    QueueFlows::flow))
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("queue.children", 3, doc("key id", QueueFlows::children))
            .flags(READONLY)
            .key()
            .build(),
        command(
                "queue.reserve",
                -2,
                doc("key [COUNT n] [LEASE duration] [BLOCK duration]", QueueHandlers::reserve))
            .logFront(QueueBlockFront.INSTANCE)
            .flags(WRITE)
            .key()
            .build(),
        command("queue.ack", -4, doc("key id token [id token ...]", QueueHandlers::ack))
            .pairsFrom(2)
            .flags(WRITE, FAST)
            .key()
            .build(),
        command("queue.fail", 5, doc("key id token error", QueueHandlers::fail))
            .flags(WRITE, FAST)
            .key()
            .build(),
        command("queue.extend", 5, doc("key id token duration", QueueHandlers::extend))
            .flags(WRITE, FAST)
            .key()
            .build(),
        command("queue.release", -4, doc("key id token [DELAY duration]", QueueHandlers::release))
            .atMost(6)
            .flags(WRITE, FAST)
            .key()
            .build(),
        command("queue.dead", -2, doc("key [COUNT n]", QueueHandlers::dead))
            .atMost(4)
            .flags(READONLY)
            .key()
            .build(),
        command("queue.replay", 3, doc("key (id | ALL)", QueueHandlers::replay))
            .flags(WRITE)
            .key()
            .build(),
        command("queue.purge", 2, doc("key", QueueHandlers::purge)).flags(WRITE).key().build(),
        command("queue.pause", -2, doc("key [GROUP name]", QueueControl::pause))
            .atMost(4)
            .flags(WRITE)
            .key()
            .build(),
        command("queue.resume", -2, doc("key [GROUP name]", QueueControl::resume))
            .atMost(4)
            .flags(WRITE)
            .key()
            .build(),
        command(
                "queue.config",
                -2,
                doc(
                    "key [RATE count period [BURST n] | RATE OFF] [CONCURRENCY n | CONCURRENCY"
                        + " OFF] [GROUP-RATE count period [BURST n] | GROUP-RATE OFF]"
                        + " [GROUP-CONCURRENCY n | GROUP-CONCURRENCY OFF] [RESULTS duration |"
                        + " RESULTS OFF] [EVENTS n | EVENTS OFF]",
                    QueueLimits::config))
            .flags(WRITE)
            .key()
            .build(),
        command(
                "queue.group",
                -3,
                doc(
                    "key name [WEIGHT w] [RATE count period [BURST n] | RATE OFF | RATE DEFAULT]"
                        + " [CONCURRENCY n | CONCURRENCY OFF | CONCURRENCY DEFAULT] [RESET]",
                    QueueLimits::group))
            .flags(WRITE)
            .key()
            .build(),
        command("queue.groups", -2, doc("key [COUNT n]", QueueLimits::groups))
            .atMost(4)
            .flags(READONLY)
            .key()
            .build(),
        command("queue.cancel", -3, doc("key id [id ...]", QueueControl::cancel))
            .flags(WRITE)
            .key()
            .build(),
        command("queue.progress", 5, doc("key id token value", QueueControl::progress))
            .flags(WRITE, FAST)
            .key()
            .build(),
        command("queue.job", 3, doc("key id", QueueControl::job))
            .flags(READONLY, FAST)
            .key()
            .build(),
        command(
                "queue.jobs",
                -2,
                doc(
                    "key [STATE (READY | DELAYED | LEASED | DEAD | WAITING-CHILDREN)] [GROUP name]"
                        + " [MATCH pattern] [CURSOR cursor] [COUNT n]",
                    QueueControl::jobs))
            .atMost(12)
            .flags(READONLY)
            .key()
            .build(),
        command(
                "queue.schedule",
                -6,
                doc(
                    "key name (EVERY duration [ALIGN] | CRON expression [TZ zone]) payload"
                        + " [PRIORITY n] [ATTEMPTS n] [BACKOFF FIXED|EXPONENTIAL duration [MAX"
                        + " duration]] [UNIQUE duration] [GROUP name] [MISSED ONE | MISSED ALL"
                        + " [MAX n] | MISSED NONE] [START unix-ms] [END unix-ms] [LIMIT n]",
                    QueueSchedules::schedule))
            .flags(WRITE, DENYOOM)
            .key()
            .build(),
        command("queue.unschedule", 3, doc("key name", QueueSchedules::unschedule))
            .flags(WRITE)
            .key()
            .build(),
        command("queue.schedules", 2, doc("key", QueueSchedules::schedules))
            .flags(READONLY)
            .key()
            .build(),
        command(
                "queue.fire",
                -6,
                doc("key name version expected-due next-due [run-time ...]", QueueSchedules::fire))
            .flags(WRITE)
            .key()
            .build(),
        command("queue.complete", -4, doc("key id token [RESULT value]", QueueResults::complete))
            .atMost(6)
            .flags(WRITE, FAST)
            .key()
            .build(),
        command("queue.result", 3, doc("key id", QueueResults::result))
            .flags(READONLY, FAST)
            .key()
            .build(),
        command(
                "queue.events",
                -2,
                doc("key [FROM id | FROM $] [COUNT n] [BLOCK duration]", QueueEvents::events))
            .atMost(8)
            .flags(READONLY)
            .key()
            .build(),
        command("queue.info", 2, doc("key", QueueHandlers::info))
            .flags(READONLY, FAST)
            .key()
            .build());
  }
}
