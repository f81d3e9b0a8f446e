import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineClient, type PipelineRunHandle } from '../../src/client/pipeline-client';
import { PipelineScheduler } from '../../src/client/pipeline-scheduler';
import {
  concurrencySemaphoreId,
  holdersQuery,
  semaphoreWorkflowId,
  waitingQuery,
} from '../../src/workflows/job-semaphore-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { ClientProcesses } from '../helpers/client-processes';
import { MAX_CONCURRENT, keyedRace } from '../fixtures/concurrency-key-pipeline';

/*
 * The semaphore of concurrency keys and of `maxInstances` (job-semaphore-workflow.ts) under races and
 * faults: many runs of one key asking at the same moment from several client processes, a holder that
 * dies while others keep asking, a semaphore that is lost while runs wait in its line, and a job's runs
 * asking while others release.
 */

interface Held {
  key: string;
  label: string;
  start: number;
  end: number;
}
const held: Held[] = [];
const startedAt = new Map<string, number>();
/** Labels of runs whose step (`ms < 0`) may end; `*` ends them all. */
const opened = new Set<string>();

const steps = {
  /** Holds the run's slot of `key` for `ms`, or until `label` is opened when `ms < 0`. */
  async hold(key: string, label: string, ms: number) {
    const start = Date.now();
    startedAt.set(label, start);
    if (ms >= 0) await new Promise((r) => setTimeout(r, ms));
    else while (!opened.has(label) && !opened.has('*')) await new Promise((r) => setTimeout(r, 50));
    held.push({ key, label, start, end: Date.now() });
    return label;
  },
};

/** One run of a key at a time: a dead holder blocks the key entirely until it is found. */
const keyedSingle = pipeline('keyed-single', {
  steps,
  concurrencyKey: ([key]) => String(key),
  maxConcurrent: 1,
}).step('hold');

/** A job's pipeline (maxInstances is the job's, not the pipeline's). */
const jobPipeline = pipeline('job-race', { steps }).step('hold');

/** The most steps of `key` that ran at the same moment (an end and a start at the same ms do not overlap). */
function mostAtOnce(key: string, except: string[] = []): number {
  const edges = held
    .filter((h) => h.key === key && !except.includes(h.label))
    .flatMap((h) => [
      [h.start, 1],
      [h.end, -1],
    ])
    .sort(([a, da], [b, db]) => a! - b! || da! - db!);
  let now = 0;
  let most = 0;
  for (const [, d] of edges) most = Math.max(most, (now += d!));
  return most;
}

let t: TestContext;
let client: PipelineClient;
let scheduler: PipelineScheduler;
const clients = new ClientProcesses('concurrency-client-process.ts');

beforeAll(async () => {
  t = await connectTest('concurrency-race');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  opened.add('*');
  await clients.killAll();
  await t?.close();
});

/** What the semaphore of a key holds, for a failure message. */
async function semaphoreState(pipelineName: string, key: string): Promise<string> {
  try {
    const s = t.client.workflow.getHandle(concurrencySemaphoreId(pipelineName, key));
    const [holders, waiting] = await Promise.all([s.query(holdersQuery), s.query(waitingQuery)]);
    return `holders ${JSON.stringify(holders.map((h) => h.workflowId))}, waiting ${JSON.stringify(waiting.map((w) => w.workflowId))}`;
  } catch (err) {
    return `semaphore not readable: ${String(err)}`;
  }
}

describe('the slot semaphore under races and faults', () => {
  it(
    'runs every one of 24 runs racing on one key from 4 client processes, never more than 2 at once',
    { timeout: 240_000 },
    async () => {
      const key = t.uid('race');
      const processes = 4;
      const perProcess = 6;
      const stepMs = 1500;
      const procs = await Promise.all(
        Array.from({ length: processes }, (_, p) =>
          clients.start([
            inject('temporalAddress'),
            t.namespace,
            t.taskQueue,
            key,
            `p${p}`,
            String(perProcess),
            String(stepMs),
          ]),
        ),
      );
      for (const p of procs) p.go();

      const total = processes * perProcess;
      const outcomes = () => procs.flatMap((p) => p.lines.filter((l) => /^(done|failed) /.test(l)));
      try {
        // 12 rounds of 1.5 s at 2 at a time: 18 s on an idle machine.
        await waitFor(
          'every run to end',
          async () => (outcomes().length === total ? true : undefined),
          150_000,
        );
      } catch (err) {
        const done = new Set(outcomes().map((l) => l.split(' ')[1]));
        const missing = procs.flatMap((_, p) =>
          Array.from({ length: perProcess }, (_, i) => `p${p}-${i}`).filter((l) => !done.has(l)),
        );
        throw new Error(
          `${(err as Error).message}: ${missing.length} of ${total} runs never ended (${missing.join(', ')}); ` +
            (await semaphoreState(keyedRace.name, key)),
          { cause: err },
        );
      }
      expect(outcomes().filter((l) => l.startsWith('failed'))).toEqual([]);
      expect(held.filter((h) => h.key === key)).toHaveLength(total);
      expect(mostAtOnce(key)).toBeLessThanOrEqual(MAX_CONCURRENT);
      console.log(`${total} racing runs of one key: at most ${mostAtOnce(key)} held at once`);
    },
  );

  // The two below each wait about a minute on the semaphore's clock: they run side by side.
  it.concurrent(
    'frees the slot of a terminated holder at most a minute after it died (plus the check), while runs keep asking every 3 s',
    { timeout: 240_000 },
    async () => {
      const key = t.uid('dead-holder');
      const holder = await client.start(keyedSingle, [key, `${key}-holder`, -1]);
      await waitFor('the holder in its step', async () =>
        startedAt.has(`${key}-holder`) ? true : undefined,
      );
      const semaphore = t.client.workflow.getHandle(concurrencySemaphoreId('keyed-single', key));
      const first = await client.start(keyedSingle, [key, `${key}-first`, 200]);
      await waitFor('the first waiter in line', async () =>
        (await semaphore.query(waitingQuery)).some((w) => w.workflowId === first.workflowId)
          ? true
          : undefined,
      );

      await holder.terminate('killed while holding its slot');
      const killedAt = Date.now();
      // Steady traffic: a new run of the key every 3 s until the first waiter got the slot.
      const traffic: PipelineRunHandle[] = [];
      const bound = 75_000;
      while (!startedAt.has(`${key}-first`) && Date.now() - killedAt < bound) {
        traffic.push(await client.start(keyedSingle, [key, `${key}-t${traffic.length}`, 100]));
        await new Promise((r) => setTimeout(r, 3000));
      }
      const recovered = startedAt.get(`${key}-first`);
      if (recovered === undefined) {
        throw new Error(
          `the key was still blocked ${bound} ms after its holder died, with ${traffic.length} runs asking meanwhile; ` +
            (await semaphoreState('keyed-single', key)),
        );
      }
      console.log(
        `dead holder freed ${recovered - killedAt} ms after it was terminated, with ${traffic.length} runs asking meanwhile`,
      );
      // The promise: at most one liveness interval (60 s) after the holder died, plus the check itself
      // and the run's start on a loaded machine.
      expect(recovered - killedAt).toBeLessThanOrEqual(bound);
      await Promise.all([first, ...traffic].map((h) => h.result()));
      expect(mostAtOnce(key, [`${key}-holder`])).toBe(1);
    },
  );

  it.concurrent(
    'a run waiting in line asks again when its semaphore is lost, and runs',
    { timeout: 240_000 },
    async () => {
      const key = t.uid('lost-semaphore');
      const holder = await client.start(keyedSingle, [key, `${key}-holder`, -1]);
      await waitFor('the holder in its step', async () =>
        startedAt.has(`${key}-holder`) ? true : undefined,
      );
      const semaphore = t.client.workflow.getHandle(concurrencySemaphoreId('keyed-single', key));
      const waiters: PipelineRunHandle[] = [];
      for (const label of ['w0', 'w1']) {
        const waiter = await client.start(keyedSingle, [key, `${key}-${label}`, 100]);
        waiters.push(waiter);
        await waitFor(`${label} in line`, async () =>
          (await semaphore.query(waitingQuery)).some((w) => w.workflowId === waiter.workflowId)
            ? true
            : undefined,
        );
      }

      // An operator terminates the semaphore: nothing will ever signal the runs in its line.
      await semaphore.terminate('lost');
      const lostAt = Date.now();
      opened.add(`${key}-holder`);
      await holder.result();
      const ended = await waitFor(
        'the waiters to run after asking again',
        async () =>
          [`${key}-w0`, `${key}-w1`].every((l) => held.some((h) => h.label === l)) ? Date.now() : undefined,
        90_000,
      );
      console.log(`runs in the line of a lost semaphore ran ${ended - lostAt} ms after it was lost`);
      await Promise.all(waiters.map((w) => w.result()));
      expect(mostAtOnce(key)).toBe(1);
    },
  );

  it(
    'a job with maxInstances 2 never runs 3 at once while runs ask as others release',
    { timeout: 240_000 },
    async () => {
      const key = t.uid('job-race');
      const jobId = await scheduler.scheduleInterval(jobPipeline, {
        jobId: key,
        every: '10s',
        args: [key, key, 400],
        paused: true,
        maxInstances: 2,
      });
      // 12 backfills of 3 occurrences each, 250 ms apart: runs keep asking while the first ones end.
      const now = Math.floor(Date.now() / 10_000) * 10_000;
      for (let b = 0; b < 12; b++) {
        const to = now - 5_000 - b * 30_000;
        await scheduler.backfillJob(jobId, { from: new Date(to - 30_000), to: new Date(to) });
        await new Promise((r) => setTimeout(r, 250));
      }
      const runs = await waitFor(
        'all 36 runs to be decided',
        async () => {
          const r = await scheduler.getHistory(jobId, { limit: 100 });
          return r.length === 36 && r.every((x) => x.status === 'completed' || x.status === 'skipped')
            ? r
            : undefined;
        },
        120_000,
      );
      const completed = runs.filter((r) => r.status === 'completed').length;
      console.log(
        `maxInstances 2 under 36 racing runs: ${completed} ran, at most ${mostAtOnce(key)} at once`,
      );
      expect(held.filter((h) => h.key === key)).toHaveLength(completed);
      expect(mostAtOnce(key)).toBeLessThanOrEqual(2);
      expect(await t.client.workflow.getHandle(semaphoreWorkflowId(jobId)).query(holdersQuery)).toEqual([]);
      await scheduler.removeJob(jobId);
    },
  );
});
