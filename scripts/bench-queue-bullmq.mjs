// BullMQ's side of scripts/bench-queue.sh: the same no-op jobs as QueueBench, on Debian's
// redis-server. Enqueue with addBulk, drain with one Worker at CONCURRENCY, then jobs due 50 ms
// later at RATE a second for SECONDS, with the latency from each job's due time to its start.
// Prints one Markdown table row.
import { Queue, Worker } from 'bullmq';

const [host, port] = process.env.REDIS.split(':');
const connection = { host, port: Number(port), maxRetriesPerRequest: null };
const jobs = Number(process.env.JOBS ?? 200000);
const concurrency = Number(process.env.CONCURRENCY ?? 50);
const rate = Number(process.env.RATE ?? 2000);
const seconds = Number(process.env.SECONDS ?? 10);
const DUE_AFTER = 50;

const queue = new Queue('bench', { connection });
await queue.obliterate({ force: true });

let t = performance.now();
for (let i = 0; i < jobs; i += 1000) {
  const n = Math.min(1000, jobs - i);
  await queue.addBulk(
    Array.from({ length: n }, (_, k) => ({
      name: 'noop',
      data: { i: i + k },
      opts: { removeOnComplete: true },
    })),
  );
}
const enqueue = jobs / ((performance.now() - t) / 1000);

const latencies = [];
let done = 0;
let measuring = false;
let drained;
const drainedAll = new Promise((resolve) => (drained = resolve));
t = performance.now();
const worker = new Worker(
  'bench',
  async (job) => {
    if (measuring) {
      latencies.push(Date.now() - (job.timestamp + (job.opts.delay ?? 0)));
    }
  },
  { connection, concurrency },
);
worker.on('completed', () => {
  if (!measuring && ++done === jobs) {
    drained((performance.now() - t) / 1000);
  }
});
const drainSeconds = await drainedAll;
const drain = jobs / drainSeconds;

measuring = true;
const start = performance.now();
let produced = 0;
while (performance.now() - start < seconds * 1000) {
  await queue.add('noop', { due: Date.now() + DUE_AFTER }, { delay: DUE_AFTER, removeOnComplete: true });
  produced++;
  const next = start + (produced * 1000) / rate;
  const wait = next - performance.now();
  if (wait > 0) {
    await new Promise((r) => setTimeout(r, wait));
  }
}
const deadline = performance.now() + 10000;
while (latencies.length < produced && performance.now() < deadline) {
  await new Promise((r) => setTimeout(r, 20));
}
await worker.close();
await queue.close();
if (latencies.length < produced) {
  console.error(`BullMQ delivered ${latencies.length} of ${produced}`);
  process.exit(1);
}
latencies.sort((a, b) => a - b);
const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
const fmt = (n) => Math.round(n).toLocaleString('en-US');
console.log(
  `| BullMQ (Redis, persistence off; one Worker at concurrency ${concurrency}) | ${fmt(enqueue)} | ${fmt(drain)} | ${at(50).toFixed(1)} | ${at(99).toFixed(1)} | ${latencies[latencies.length - 1].toFixed(1)} |`,
);
