import { afterAll, expect, it } from 'vitest';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import type { JobRun } from '../../src/client/runs/run-types';
import { pipeline } from '../../src/pipeline';
import { createScheduleTestEnv, type ScheduleTestEnv } from '../../src/testing/index';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * The schedule test environment against the dev server: the same jobs run in real time on the suite's
 * server and in virtual time, with the same operations (pause, resume, trigger, backfill, a worker stopped
 * and started again) replayed at the instants they were made, and compared outcome by outcome for every
 * nominal time: a run with its status (or the guard's skip reason), or none (the server started nothing).
 * Runs take real time on the server (a step that sleeps) and the same virtual time in the environment
 * (`durations`). Nominal times within 0.9 s of an operation (3 s of a worker stopped or started), or 1.5 s of a run's end on
 * the server, are ambiguous
 * (which came first is a matter of milliseconds) and are left out of the comparison, counted.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Sleeps at least `ms`, then up to the next instant `phase` ms into a `period` of the clock (fires are at multiples of it). */
const sleepToPhase = (ms: number, period: number, phase: number) => {
  const t = Date.now() + ms;
  return sleep(ms + ((((phase - t) % period) + period) % period));
};
const steps = {
  async work(ms: number) {
    await sleep(ms);
    return ms;
  },
};
/** In virtual time the step returns at once: its time is the environment's `durations`. */
const instant = { work: async (ms: number) => ms };
const p = pipeline('diff', { steps }).step('work', { timeout: '1m' });

type Op =
  | { at: number; kind: 'pause' | 'resume' | 'trigger'; jobId: string }
  | { at: number; kind: 'backfill'; jobId: string; from: string; to: string }
  | { at: number; kind: 'workers-down' | 'workers-up'; queue: string };

interface Case {
  name: string;
  opts: Record<string, unknown>;
  kind: 'interval' | 'cron';
  /** Run time of the step, ms. */
  runMs: number;
  /** The interval's period, ms: the job is created half a period away from its fires. */
  periodMs?: number;
  /** What happens during the real run, at offsets from its start (ms). */
  script: (c: {
    pause: () => Promise<void>;
    resume: () => Promise<void>;
    trigger: () => Promise<void>;
    backfill: (from: string, to: string) => Promise<void>;
    stopWorker: () => Promise<void>;
    startWorker: () => Promise<void>;
    /** Waits until the server lists `n` runs of the job, all closed (a backfill's queue drained). */
    runsClosed: (n: number) => Promise<void>;
  }) => Promise<void>;
}

const CASES: Case[] = [
  {
    name: 'skip',
    kind: 'interval',
    periodMs: 4000,
    opts: { every: '4s' },
    runMs: 6000,
    script: async () => {
      await sleep(21_000);
    },
  },
  {
    name: 'buffer',
    kind: 'interval',
    periodMs: 4000,
    opts: { every: '4s', coalesce: false },
    runMs: 5000,
    script: async () => {
      await sleep(21_000);
    },
  },
  {
    name: 'pause',
    kind: 'interval',
    periodMs: 2000,
    opts: { every: '2s' },
    runMs: 0,
    script: async (c) => {
      await sleepToPhase(5_000, 2000, 1000); // between two fires
      await c.pause();
      await sleepToPhase(6_000, 2000, 1000);
      await c.resume();
      await sleep(8_000);
    },
  },
  {
    name: 'outage',
    kind: 'interval',
    periodMs: 2000,
    opts: { every: '2s', misfireGraceTime: '3s' },
    runMs: 0,
    script: async (c) => {
      await sleepToPhase(5_000, 2000, 1000);
      await c.stopWorker();
      await sleepToPhase(7_000, 2000, 1000);
      await c.startWorker();
      await sleep(8_000);
    },
  },
  {
    name: 'trigger',
    kind: 'interval',
    periodMs: 5000,
    opts: { every: '5s' },
    runMs: 3000,
    script: async (c) => {
      await sleepToPhase(5_000, 5000, 1500); // a fire's run (3 s) is open: the trigger skips
      await c.trigger();
      await sleepToPhase(5_000, 5000, 4000); // between runs: the trigger runs
      await c.trigger();
      await sleep(8_000);
    },
  },
  {
    name: 'dst-paris',
    kind: 'cron',
    opts: {
      cron: '30 2 * * *',
      timezone: 'Europe/Paris',
      dst: { gap: 'shift', overlap: 'once' },
      paused: true,
      coalesce: false,
    },
    runMs: 0,
    script: async (c) => {
      await c.backfill('2026-03-27T00:00:00Z', '2026-03-31T00:00:00Z');
      await sleep(10_000);
    },
  },
  {
    name: 'dst-new-york',
    kind: 'cron',
    opts: { cron: '30 1 * * *', timezone: 'America/New_York', paused: true, coalesce: false },
    runMs: 0,
    script: async (c) => {
      await c.backfill('2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z');
      await sleep(10_000);
    },
  },
  {
    // A SKIP job's backfill runs every time of its window, one after the other (the backfill passes
    // BUFFER_ALL; under the job's own SKIP the server started the first time only).
    name: 'backfill-skip',
    kind: 'cron',
    opts: { cron: '0 * * * *', paused: true },
    runMs: 1000,
    script: async (c) => {
      await c.backfill('2026-06-01T00:00:00Z', '2026-06-01T04:00:00Z');
      await c.runsClosed(5);
    },
  },
  {
    // The queue behind an open scheduled run: created at C (5 s into a 10 s period), runs of 4 s. At
    // C+16 the run of C+15 is open; the backfill's two times before the create (C-15, C-5) wait behind it
    // (C+19 to C+27, plus Temporal's start delays); the fire of C+25 finds the second queued or open
    // before it and is skipped (SKIP), the fires after run.
    name: 'backfill-queue',
    kind: 'interval',
    periodMs: 10_000,
    opts: { every: '10s' },
    runMs: 4000,
    script: async (c) => {
      await sleepToPhase(12_000, 10_000, 1000);
      const now = Date.now();
      await c.backfill(new Date(now - 34_000).toISOString(), new Date(now - 18_000).toISOString());
      await sleep(22_000);
    },
  },
  {
    // A paused coalescing job with a grace: each backfilled run starts late, and the server answers the
    // coalescing guard's lookup with no later fire (paused), so each is judged by its own time (misfire).
    name: 'backfill-grace',
    kind: 'interval',
    periodMs: 10_000,
    opts: { every: '10s', paused: true, misfireGraceTime: '15s' },
    runMs: 0,
    script: async (c) => {
      await sleepToPhase(3_000, 10_000, 3000);
      const now = Date.now();
      await c.backfill(new Date(now - 65_000).toISOString(), new Date(now - 27_000).toISOString());
      await c.runsClosed(4);
    },
  },
];

const contexts: TestContext[] = [];
afterAll(async () => {
  for (const t of contexts) await t.close();
});

type Outcome = string;
const normal = (r: JobRun | undefined): Outcome =>
  !r ? 'none' : r.status === 'skipped' ? `skipped:${r.skipReason}` : r.status;

it(
  'the schedule test environment gives the dev server outcome, nominal time by nominal time',
  { timeout: 120_000 },
  async () => {
    const ops: Op[] = [];
    const real = await Promise.all(
      CASES.map(async (c) => {
        const t = await connectTest(`diff-${c.name}`);
        contexts.push(t);
        const jobId = t.uid(`diff-${c.name}`);
        let worker = await t.startWorker(steps);
        const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
        // Created half a period from its fires: whether the first fire came before the schedule existed
        // would otherwise be a matter of milliseconds, and under SKIP it decides every run after it.
        if (c.periodMs) await sleepToPhase(0, c.periodMs, c.periodMs / 2);
        const asked = Date.now();
        const job = { jobId, args: [c.runMs], ...c.opts };
        if (c.kind === 'interval') await scheduler.scheduleInterval(p, job);
        else await scheduler.schedule(p, job as never);
        const created = Date.now();
        // A create that took longer than the margin: the case cannot be compared (counted).
        const straddled =
          c.periodMs !== undefined && Math.floor(asked / c.periodMs) !== Math.floor(created / c.periodMs);
        const log = (op: Op) => ops.push(op);
        await c.script({
          pause: async () => {
            log({ at: Date.now(), kind: 'pause', jobId });
            await scheduler.pauseJob(jobId);
          },
          resume: async () => {
            log({ at: Date.now(), kind: 'resume', jobId });
            await scheduler.resumeJob(jobId);
          },
          trigger: async () => {
            log({ at: Date.now(), kind: 'trigger', jobId });
            await scheduler.triggerJob(jobId);
          },
          backfill: async (from, to) => {
            log({ at: Date.now(), kind: 'backfill', jobId, from, to });
            await scheduler.backfillJob(jobId, { from, to });
          },
          stopWorker: async () => {
            log({ at: Date.now(), kind: 'workers-down', queue: t.taskQueue });
            worker.shutdown();
            await waitFor('the worker to stop', async () =>
              worker.getState() === 'STOPPED' ? true : undefined,
            );
          },
          runsClosed: async (n) => {
            await waitFor(
              `${n} closed runs of ${jobId}`,
              async () => {
                const h = await scheduler.getHistory(jobId, { limit: 200 });
                return h.length >= n && h.every((r) => r.status !== 'running') ? true : undefined;
              },
              60_000,
            );
          },
          startWorker: async () => {
            worker = await t.startWorker(steps);
            // Logged once it polls: creating a worker takes a moment on a loaded machine.
            log({ at: Date.now(), kind: 'workers-up', queue: t.taskQueue });
          },
        });
        const ended = Date.now();
        // Paused at the end on both sides (a pause drops what the buffer holds, on both).
        log({ at: Date.now(), kind: 'pause', jobId });
        await scheduler.pauseJob(jobId);
        const runs = await waitFor(
          'the runs to close and be listed',
          async () => {
            const h = await scheduler.getHistory(jobId, { limit: 200 });
            return h.every((r) => r.status !== 'running') ? h : undefined;
          },
          30_000,
        );
        return { c, jobId, created, ended, runs, taskQueue: t.taskQueue, straddled };
      }),
    );

    // Each job, and its operations at the same instants, in virtual time (an environment per job: its
    // worker outage is its task queue's alone, as on the server).
    const envs = new Map<string, ScheduleTestEnv>();
    for (const r of real) {
      const env = createScheduleTestEnv({
        start: new Date(r.created - 1),
        steps,
        replace: instant,
        durations: { work: (a) => Number(a.args[0]) },
      });
      const job = { jobId: r.jobId, args: [r.c.runMs], ...r.c.opts };
      if (r.c.kind === 'interval') await env.scheduleInterval(p, job);
      else await env.schedule(p, job as never);
      const mine = ops
        .filter((o) => ('jobId' in o ? o.jobId === r.jobId : o.queue === r.taskQueue))
        .sort((x, y) => x.at - y.at);
      for (const o of mine) {
        await env.advanceTo(new Date(o.at));
        if (o.kind === 'workers-down') {
          // Declared when it starts, up to when the worker came back (virtual time cannot change the past).
          const up = mine.find((u) => u.kind === 'workers-up' && u.at > o.at)!;
          env.workersDown({ from: new Date(o.at), to: new Date(up.at) });
        } else if (o.kind === 'pause') await env.pauseJob(o.jobId);
        else if (o.kind === 'resume') await env.resumeJob(o.jobId);
        else if (o.kind === 'trigger') await env.triggerJob(o.jobId);
        else if (o.kind === 'backfill') await env.backfillJob(o.jobId, { from: o.from, to: o.to });
      }
      await env.advanceTo(new Date(r.ended + 30_000));
      envs.set(r.jobId, env);
    }

    const differences: string[] = [];
    let compared = 0;
    let ambiguous = 0;
    const straddled = real.filter((r) => r.straddled).map((r) => r.c.name);
    for (const r of real) {
      if (r.straddled) continue;
      // Instants with a margin either side: 0.9 s for a job operation (made between two fires), 1.5 s for
      // a run's close, 3 s for a worker stopped or started (its pollers end and begin after the call).
      const boundaries: [number, number][] = [
        ...ops
          .filter(
            (o) => ('jobId' in o ? o.jobId === r.jobId : o.queue === r.taskQueue) && o.kind !== 'backfill',
          )
          .map((o): [number, number] => [o.at, 'queue' in o ? 3000 : 900]),
        ...r.runs.flatMap((run): [number, number][] =>
          run.closedAt ? [[run.closedAt.getTime(), 1500]] : [],
        ),
      ];
      const env = envs.get(r.jobId)!;
      const virtual = env.occurrences(r.jobId);
      for (const o of virtual) {
        const at = Date.parse(o.nominal);
        if (o.source === 'schedule' && (at <= r.created + 1000 || at > r.ended)) continue;
        if (o.source === 'trigger') continue; // compared below by count: the server stamps its own instant
        if (o.source === 'schedule' && boundaries.some(([b, margin]) => Math.abs(b - at) < margin)) {
          ambiguous++;
          continue;
        }
        compared++;
        const mine =
          o.outcome === 'ran'
            ? env.runs(r.jobId).find((x) => x.workflowId === o.workflowId)!.status
            : o.reason === 'misfire' || o.reason === 'max-instances' || o.reason === 'dst'
              ? `skipped:${o.reason}`
              : 'none';
        const theirs = normal(r.runs.find((x) => x.scheduledAt?.getTime() === at));
        if (mine !== theirs)
          differences.push(
            `${r.c.name} ${o.nominal} (${o.source}): virtual ${mine} (${o.outcome}${o.reason ? `:${o.reason}` : ''}), server ${theirs}`,
          );
      }
      // Runs the server started at times the model does not list (other than triggers) are differences too.
      const listed = new Set(virtual.map((o) => Date.parse(o.nominal)));
      const triggers = ops.filter((o) => o.kind === 'trigger' && o.jobId === r.jobId);
      for (const run of r.runs) {
        const at = run.scheduledAt?.getTime();
        if (at === undefined || listed.has(at) || triggers.some((t) => Math.abs(t.at - at) < 1000)) continue;
        differences.push(
          `${r.c.name} ${run.scheduledAt!.toISOString()}: a run on the server (${normal(run)}), no such time in virtual time`,
        );
      }
      const realTriggered = r.runs
        .filter((run) => triggers.some((t) => Math.abs(t.at - run.scheduledAt!.getTime()) < 1000))
        .map(normal);
      const virtualTriggered = virtual
        .filter((o) => o.source === 'trigger')
        .map((o) => (o.outcome === 'ran' ? 'completed' : 'none'))
        .filter((x) => x !== 'none');
      if (realTriggered.join() !== virtualTriggered.join())
        differences.push(
          `${r.c.name} triggers: virtual [${virtualTriggered.join()}], server [${realTriggered.join()}]`,
        );
    }
    console.log(
      `schedule-env differential: ${compared} nominal times compared, ${ambiguous} left out as ambiguous, ${differences.length} differences; cases whose create straddled a fire (not compared): ${straddled.join(', ') || 'none'}`,
    );
    if (differences.length > 0) {
      for (const r of real) {
        console.log(r.c.name, new Date(r.created).toISOString(), new Date(r.ended).toISOString());
        console.log(
          ' server',
          r.runs
            .map(
              (x) =>
                `${x.scheduledAt?.toISOString().slice(17, 23)} ${x.startedAt.toISOString().slice(17, 23)}-${x.closedAt?.toISOString().slice(17, 23)} ${normal(x)}`,
            )
            .join(' | '),
        );
        console.log(
          ' virtual',
          envs
            .get(r.jobId)!
            .occurrences(r.jobId)
            .map((o) => `${o.nominal.slice(17, 23)} ${o.outcome}${o.reason ? `:${o.reason}` : ''}`)
            .join(' | '),
        );
      }
    }
    expect(differences).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(20);
  },
);
