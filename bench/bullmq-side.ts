/*
 * The BullMQ side of bench/pipeline-overhead.bench.ts and bench/bulk.bench.ts: the same three no-op steps
 * as a BullMQ flow of three chained jobs (stepC waits for stepB, which waits for stepA), on a redis-server
 * this module starts itself on a free loopback port, with its own folder and append-only file
 * (`--appendonly yes --appendfsync everysec`: BullMQ's durable setting). Without redis-server on PATH the
 * side is skipped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FlowProducer, Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { freePort } from '../src/devserver/ports';
import { noopSteps } from './noop-steps';

/** A running BullMQ side: `run(x)` runs one 3-job chain and returns stepC's result. */
export interface BullmqSide {
  run(x: number): Promise<number>;
  /**
   * One chain per item, added with `FlowProducer.addBulk` `chunk` chains a call (each call one MULTI),
   * the next call as soon as the previous one returns; resolves with stepC's results, in item order, when
   * every chain has completed. One `runBulk` at a time.
   */
  runBulk(xs: number[], chunk: number): Promise<number[]>;
  /** The redis-server's `INFO` fields, e.g. `used_memory`, `aof_current_size`. */
  info(): Promise<Record<string, string>>;
  close(): Promise<void>;
}

export interface BullmqOptions {
  /**
   * Let redis-server rewrite (compact) its append-only file when it grows (Redis's default). Off, the
   * file's growth is every byte the side wrote durably. @default true
   */
  aofRewrite?: boolean;
}

/** Why the side cannot run here, or undefined when it can. */
export function bullmqUnavailable(): string | undefined {
  const probe = spawnSync('redis-server', ['--version'], { stdio: 'ignore' });
  return probe.error ? 'redis-server is not on PATH (apt-get install redis-server)' : undefined;
}

/** Resolves when redis-server logs that it accepts connections (it logs to stdout without --logfile). */
async function waitForRedis(server: ChildProcess): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`redis-server not ready within 15 s: ${out.slice(-500)}`)),
      15_000,
    );
    server.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`));
    });
  });
  server.stdout!.resume();
}

/** Starts redis-server and a BullMQ worker (`concurrency` jobs at once) in this process. */
export async function startBullmq(concurrency: number, options: BullmqOptions = {}): Promise<BullmqSide> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tflow-bench-redis-'));
  const server = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      ...(options.aofRewrite === false ? ['--auto-aof-rewrite-percentage', '0'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    await waitForRedis(server);
  } catch (err) {
    server.kill();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
  const queueName = `bench-chain-${randomUUID()}`;
  const worker = new Worker(
    queueName,
    async (job: Job<{ x?: number; item?: number }>) => {
      // The leaf gets the run's input; each parent gets its one child's result.
      const input = job.data.x ?? (Object.values(await job.getChildrenValues())[0] as number);
      return noopSteps[job.name as keyof typeof noopSteps](input);
    },
    { connection, concurrency },
  );
  const flows = new FlowProducer({ connection });
  const events = new QueueEvents(queueName, { connection });
  const queue = new Queue(queueName, { connection });
  // One listener per run in flight on each: not a leak.
  flows.setMaxListeners(concurrency + 10);
  events.setMaxListeners(2 * concurrency + 10);
  await Promise.all([worker.waitUntilReady(), events.waitUntilReady()]);
  const done = { removeOnComplete: true, removeOnFail: true };
  /** The chain of `x`; stepC's `item` (bulk runs) says which result it is. */
  const chain = (x: number, item?: number) => ({
    name: 'stepC',
    queueName,
    data: item === undefined ? {} : { item },
    opts: done,
    children: [
      {
        name: 'stepB',
        queueName,
        opts: done,
        children: [{ name: 'stepA', queueName, data: { x }, opts: done }],
      },
    ],
  });
  return {
    async run(x) {
      const tree = await flows.add(chain(x));
      return (await tree.job.waitUntilFinished(events)) as number;
    },
    async runBulk(xs, chunk) {
      // Completions are counted from this process's worker, the only one on the queue.
      const results: number[] = new Array(xs.length);
      let left = xs.length;
      let onCompleted: (job: Job<{ x?: number; item?: number }>, result: number) => void = () => {};
      let onFailed: (job: Job | undefined, err: Error) => void = () => {};
      const finished = new Promise<void>((resolve, reject) => {
        onCompleted = (job, result) => {
          if (job.name !== 'stepC' || job.data.item === undefined) return;
          results[job.data.item] = result;
          if (--left === 0) resolve();
        };
        onFailed = (job, err) => reject(new Error(`BullMQ job ${job?.name} failed: ${err.message}`));
      });
      finished.catch(() => {}); // awaited below, after the adds; a failure meanwhile must not go unhandled
      worker.on('completed', onCompleted);
      worker.on('failed', onFailed);
      try {
        for (let at = 0; at < xs.length; at += chunk) {
          await flows.addBulk(xs.slice(at, at + chunk).map((x, i) => chain(x, at + i)));
        }
        if (xs.length > 0) await finished;
        return results;
      } finally {
        worker.off('completed', onCompleted);
        worker.off('failed', onFailed);
      }
    },
    async info() {
      const text = await (await queue.client).info();
      return Object.fromEntries(
        text
          .split('\r\n')
          .filter((l) => l.includes(':') && !l.startsWith('#'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
      );
    },
    async close() {
      await worker.close();
      await Promise.all([flows.close(), events.close(), queue.close()]);
      server.kill();
      await new Promise((r) => server.once('exit', r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
