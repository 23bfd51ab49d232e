// BullMQ's side of scripts/bench-queue-features.sh, on Debian's redis-server, the same jobs as
// QueueFeaturesBench. PART=limited: LIMITED_JOBS no-op jobs under BullMQ's open-source rate limiter
// (a Worker's limiter, LIMIT jobs a second), drained by one Worker at CONCURRENCY; the rate
// reached, the most jobs started in any 100 ms, and CPU ms a thousand jobs of redis-server
// (REDIS_PID) and of this process. PART=grouped: TENANTS tenants without BullMQ Pro's groups,
// emulated both ways its users do: one queue for all (FIFO) and a queue a tenant with a Worker
// each (the concurrency split between them); tenant 0 queues HEAVY jobs, the workers start, and
// once a tenth are done each other tenant queues LIGHT jobs. Prints Markdown table rows.
import { Queue, Worker } from 'bullmq';
import { readFileSync } from 'node:fs';

const [host, port] = process.env.REDIS.split(':');
const connection = { host, port: Number(port), maxRetriesPerRequest: null };
const concurrency = Number(process.env.CONCURRENCY ?? 50);
const part = process.env.PART ?? 'limited';
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** utime + stime of a process, in ms (USER_HZ 100). */
function cpuMillis(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

async function addAll(queue, n, data) {
  for (let i = 0; i < n; i += 1000) {
    const k = Math.min(1000, n - i);
    await queue.addBulk(
      Array.from({ length: k }, () => ({ name: 'noop', data: data(), opts: { removeOnComplete: true } })),
    );
  }
}

async function limited(limit, jobs, print) {
  const queue = new Queue('limited', { connection });
  await queue.obliterate({ force: true });
  await addAll(queue, jobs, () => ({}));
  const windows = new Map();
  let done = 0;
  let finished;
  const all = new Promise((resolve) => (finished = resolve));
  const redisBefore = cpuMillis(process.env.REDIS_PID);
  const selfBefore = process.cpuUsage();
  const start = performance.now();
  const worker = new Worker(
    'limited',
    async () => {
      const w = Math.floor((performance.now() - start) / 100);
      windows.set(w, (windows.get(w) ?? 0) + 1);
    },
    { connection, concurrency, limiter: { max: limit, duration: 1000 } },
  );
  worker.on('completed', () => {
    if (++done === jobs) {
      finished();
    }
  });
  await all;
  const seconds = (performance.now() - start) / 1000;
  const redisMillis = cpuMillis(process.env.REDIS_PID) - redisBefore;
  const self = process.cpuUsage(selfBefore);
  await worker.close();
  await queue.close();
  const fullest = Math.max(...windows.values());
  if (!print) {
    return;
  }
  console.log(
    `| BullMQ: Worker limiter { max: ${limit}, duration: 1000 }, concurrency ${concurrency} | ${fmt(jobs / seconds)} | ${(jobs / seconds / limit).toFixed(2)} | ${fullest} | ${fmt((redisMillis * 1000) / jobs)} | ${fmt(((self.user + self.system) / 1000) * 1000 / jobs)} |`,
  );
}

async function grouped(perTenant) {
  const tenants = Number(process.env.TENANTS ?? 10);
  const heavy = Number(process.env.HEAVY ?? 20000);
  const light = Number(process.env.LIGHT ?? 200);
  const names = Array.from({ length: tenants }, (_, t) => (perTenant ? `tenant-${t}` : 'all'));
  const queues = [...new Set(names)].map((n) => new Queue(n, { connection }));
  for (const q of queues) {
    await q.obliterate({ force: true });
  }
  const queueOf = (t) => queues[perTenant ? t : 0];
  await addAll(queueOf(0), heavy, () => ({ heavy: true }));
  const latencies = [];
  let heavyDone = 0;
  let lightDone = 0;
  let heavyLeftAtLastLight = -1;
  let started = 0;
  let addedAt = Infinity;
  let lightInWindow = 0;
  const WINDOW = 1000;
  const lightJobs = light * (tenants - 1);
  let finished;
  const all = new Promise((resolve) => (finished = resolve));
  let lightAdded = false;
  const start = performance.now();
  const handler = async (job) => {
    started++;
    if (!job.data.heavy && started > addedAt && started <= addedAt + WINDOW) {
      lightInWindow++;
    }
    if (job.data.heavy) {
      heavyDone++;
    } else {
      latencies.push(Date.now() - job.data.added);
      if (++lightDone === lightJobs) {
        heavyLeftAtLastLight = heavy - heavyDone;
      }
    }
    if (heavyDone + lightDone === heavy + lightJobs) {
      finished();
    }
    if (!lightAdded && heavyDone >= heavy / 10) {
      lightAdded = true;
      setImmediate(async () => {
        for (let t = 1; t < tenants; t++) {
          const added = Date.now();
          await addAll(queueOf(t), light, () => ({ added }));
        }
        addedAt = started;
      });
    }
  };
  const workers = queues.map(
    (q) =>
      new Worker(q.name, handler, {
        connection,
        concurrency: Math.max(1, Math.floor(concurrency / queues.length)),
      }),
  );
  await all;
  const seconds = (performance.now() - start) / 1000;
  for (const w of workers) {
    await w.close();
  }
  for (const q of queues) {
    await q.close();
  }
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  const how = perTenant
    ? `a queue a tenant, ${queues.length} Workers at concurrency ${Math.floor(concurrency / queues.length)}`
    : `one queue for all (FIFO), one Worker at concurrency ${concurrency}`;
  console.log(
    `| BullMQ: ${how} | ${fmt((heavy + lightJobs) / seconds)} | ${(lightInWindow / WINDOW).toFixed(2)} | ${at(50).toFixed(1)} | ${at(99).toFixed(1)} | ${latencies[latencies.length - 1].toFixed(1)} | ${fmt(heavyLeftAtLastLight)} |`,
  );
}

// The JIT's warm-up first, as on Idem's side: its figures dropped.
const warm = Number(process.env.WARM ?? 10000);
if (warm > 0) {
  await limited(1000000, warm, false);
}
if (part === 'limited') {
  await limited(Number(process.env.LIMIT ?? 2000), Number(process.env.LIMITED_JOBS ?? 20000), true);
} else {
  await grouped(false);
  await grouped(true);
}
