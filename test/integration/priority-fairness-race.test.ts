import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DevServer } from '../../src/devserver';
import { pipeline } from '../../src/pipeline';
import type { PriorityOptions } from '../../src/pipeline/priority';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { createWorker, type Steps } from '../../src/worker/create-worker';
import { ClientProcesses } from '../helpers/client-processes';
import { connectTest, type TestContext } from '../helpers/temporal';
import { waitFor } from '../helpers/wait-for';
import {
  askedPriority,
  CHILD_PRIORITY,
  inherit,
  readStepAttempts,
  recordingSteps,
  runPriority,
  setFields,
  URGENT_PRIORITY,
  type ServerPriority,
} from '../fixtures/priority-pipeline';

/*
 * Priority and fairness when many runs race (on the suite's server: the cluster under
 * `npm run test:cluster`), and the order Temporal dispatches them in (on a dev server of the file's own
 * with fairness on: `DevServer.start({ fairness: true })`, the new matcher, `matching.enableFairness`, one
 * partition per task queue, within which Temporal orders tasks).
 *
 * 1. The mapping under a race: 4 client processes (test/fixtures/priority-client-process.ts) start 20 runs
 *    each at the same moment, with different priorities, fairness keys and weights (`askedPriority`), or
 *    none (the pipeline's). Every run ends, each step ran exactly once, and the server holds what was asked:
 *    the run's priority in its WorkflowExecutionStarted event and its describe; a step without its own
 *    scheduled with none (it inherits), the urgent step with its own; the child with its own priority and
 *    its parent's fairness key and weight (Temporal merges field by field); and every attempt was handed
 *    (the activity's `info.priority`) the merged priority, or the activity's own fields when the worker
 *    took it eagerly (below).
 * 2. Ordering, with one activity slot and a backlog held behind a step that waits for the test: what
 *    Temporal documents (docs.temporal.io, Task Queue Priority and Fairness: tasks of a higher priority are
 *    dispatched first; within a level, first in first out; fairness keys share dispatch by weight), as
 *    this server does it: runs of priority 1 started after a backlog of priority 5 get the slot before
 *    that backlog; runs of the backlog's own level wait behind it (the same oracle fails there: it can);
 *    and a second tenant's runs started behind the first's backlog are served among it, not after it.
 */

const PROCESSES = 4;
const PER_PROCESS = 20;

let dir: string;
/** The suite's server (the cluster under `npm run test:cluster`): the mapping. */
let suite: TestContext;
let flows: TestContext;
/** A dev server of the file's own with fairness on: the ordering. */
let server: DevServer;
let connection: Connection;
let native: NativeConnection;
let client: Client;
const clients = new ClientProcesses('priority-client-process.ts');
const workers: { worker: Worker; done: Promise<void> }[] = [];

beforeAll(async () => {
  suite = await connectTest('priority-race');
  flows = await connectTest('priority-flow');
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-priority-race-'));
  server = await DevServer.start({
    home: dir,
    cliPath: inject('temporalCli'),
    searchPath: process.env.PATH ?? '',
    db: 'memory',
    port: 0,
    uiPort: false,
    install: false,
    sdkDownload: false,
    fairness: true,
  });
  connection = await Connection.connect({ address: server.address });
  native = await NativeConnection.connect({ address: server.address });
  client = new Client({ connection, namespace: server.namespace });
});
afterAll(async () => {
  await clients.killAll();
  for (const { worker, done } of workers) {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await done;
  }
  await native?.close();
  await connection?.close();
  await server?.stop();
  await suite?.close();
  await flows?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function startWorker(taskQueue: string, steps: Steps, slots?: number): Promise<Worker> {
  const worker = await createWorker({
    connection: native,
    namespace: server.namespace,
    taskQueue,
    steps,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    ...(slots ? { workerOptions: { maxConcurrentActivityTaskExecutions: slots } } : {}),
  });
  workers.push({ worker, done: worker.run() });
  return worker;
}

async function stopWorker(worker: Worker): Promise<void> {
  worker.shutdown();
  await workers.find((w) => w.worker === worker)!.done;
}

describe('priority and fairness, racing', () => {
  it(
    `keeps the priority asked by each of ${PROCESSES * PER_PROCESS} runs started at once from ${PROCESSES} client processes, on the run, its steps and its child, each step run once`,
    { timeout: 180_000 },
    async () => {
      const log = path.join(dir, 'race.log');
      await suite.startWorker(recordingSteps(log, 10));
      const prefix = `pr${Date.now()}`;
      const procs = await Promise.all(
        Array.from({ length: PROCESSES }, (_, p) =>
          clients.start([
            inject('temporalAddress'),
            suite.namespace,
            suite.taskQueue,
            prefix,
            `p${p}`,
            String(PER_PROCESS),
          ]),
        ),
      );
      for (const p of procs) p.go();
      const total = PROCESSES * PER_PROCESS;
      const outcomes = () => procs.flatMap((p) => p.lines.filter((l) => /^(done|failed) /.test(l)));
      await waitFor(
        'every run to end',
        async () => (outcomes().length === total ? true : undefined),
        150_000,
      );
      expect(outcomes().filter((l) => l.startsWith('failed'))).toEqual([]);

      const runs = procs.flatMap((_, p) =>
        Array.from({ length: PER_PROCESS }, (_, i) => ({
          workflowId: `${prefix}-p${p}-${i}`,
          asked: askedPriority(`p${p}`, i),
        })),
      );
      // Each step of each run (and its child's) ran exactly once, and returned.
      const attempts = readStepAttempts(log);
      const stepsOf = (id: string) =>
        attempts.filter((a) => a.workflowId === id || a.workflowId === `${id}/sub`);
      expect(attempts.length).toBe(total * 3);
      expect(attempts.every((a) => a.attempt === 1 && a.returned)).toBe(true);
      for (const { workflowId } of runs) {
        expect(
          stepsOf(workflowId)
            .map((a) => `${a.workflowId.endsWith('/sub') ? 'sub.' : ''}${a.activityId}`)
            .sort(),
        ).toEqual(['sub.work', 'urgent', 'work']);
      }

      const seen = await Promise.all(
        runs.map(async ({ workflowId, asked }) => {
          const handle = suite.client.workflow.getHandle(workflowId);
          const child = suite.client.workflow.getHandle(`${workflowId}/sub`);
          const [described, history, childDescribed, childHistory] = await Promise.all([
            handle.describe(),
            handle.fetchHistory(),
            child.describe(),
            child.fetchHistory(),
          ]);
          const events = history.events ?? [];
          const scheduled = Object.fromEntries(
            events
              .map((e) => e.activityTaskScheduledEventAttributes)
              .filter((a) => a !== null && a !== undefined)
              .map((a) => [a.activityId, setFields(a.priority)]),
          );
          const completed = events.filter((e) => e.activityTaskCompletedEventAttributes).length;
          const handed = Object.fromEntries(
            stepsOf(workflowId).map((a) => [
              `${a.workflowId.endsWith('/sub') ? 'sub.' : ''}${a.activityId}`,
              a.priority,
            ]),
          );
          return {
            workflowId,
            asked,
            started: setFields(events[0]?.workflowExecutionStartedEventAttributes?.priority),
            described: setFields(described.raw.workflowExecutionInfo?.priority),
            scheduled,
            completed,
            childInitiated: setFields(
              events.find((e) => e.startChildWorkflowExecutionInitiatedEventAttributes)
                ?.startChildWorkflowExecutionInitiatedEventAttributes?.priority,
            ),
            childStarted: setFields(
              childHistory.events?.[0]?.workflowExecutionStartedEventAttributes?.priority,
            ),
            childDescribed: setFields(childDescribed.raw.workflowExecutionInfo?.priority),
            handed,
          };
        }),
      );
      const expected = seen.map(({ workflowId, asked }) => {
        const run = runPriority(asked);
        return {
          workflowId,
          asked,
          started: run,
          described: run,
          scheduled: { work: {}, urgent: { priorityKey: URGENT_PRIORITY } },
          completed: 2,
          childInitiated: { priorityKey: CHILD_PRIORITY },
          childStarted: inherit(run, { priorityKey: CHILD_PRIORITY }),
          childDescribed: inherit(run, { priorityKey: CHILD_PRIORITY }),
        };
      });
      expect(seen.map(({ handed: _, ...rest }) => rest)).toEqual(expected);
      // What each attempt was handed (`info.priority`): the merged priority when the task came through
      // the task queue; only the activity's own fields when the worker took it eagerly on completing the
      // workflow task (Temporal's eager dispatch, on by default, which skips the queue and its ordering:
      // seen on server 1.32.0, where `maxEagerActivityReservationsPerWorkflowTask: 0` gave the merged one
      // every time). Either way, nothing the run did not ask.
      const how = { queued: 0, eager: 0 };
      const wrong: string[] = [];
      for (const { workflowId, asked, handed } of seen) {
        const run = runPriority(asked);
        const ways: Record<string, [ServerPriority, ServerPriority]> = {
          work: [run, {}],
          urgent: [inherit(run, { priorityKey: URGENT_PRIORITY }), { priorityKey: URGENT_PRIORITY }],
          'sub.work': [inherit(run, { priorityKey: CHILD_PRIORITY }), {}],
        };
        for (const [step, [merged, own]] of Object.entries(ways)) {
          const got = JSON.stringify(handed[step]);
          if (got === JSON.stringify(merged)) how.queued++;
          else if (got === JSON.stringify(own)) how.eager++;
          else wrong.push(`${workflowId} ${step}: ${got}`);
        }
      }
      console.log(
        `${total} racing runs: ${how.queued} attempts handed their merged priority, ${how.eager} their own fields only (eager), over ${new Set(seen.map((r) => JSON.stringify(r.started))).size} distinct run priorities`,
      );
      expect(wrong).toEqual([]);
      // The race covered what it means to: runs with and without each field, several keys and weights.
      const kinds = new Set(runs.map((r) => JSON.stringify(runPriority(r.asked))));
      expect(kinds.size).toBeGreaterThanOrEqual(20);
    },
  );
});

describe('priority of the runs a flow control starts', () => {
  it("a run started by a dedupe carries its pipeline's priority", { timeout: 60_000 }, async () => {
    const p = pipeline(`priority-flow-${flows.taskQueue}`, {
      steps: ['hold'],
      priority: { priority: 2, fairnessKey: 'flows', fairnessWeight: 3 },
      dedupe: { window: '1m' },
    }).step('hold');
    await flows.startWorker({ hold: async (x: number) => x });
    const runs = new PipelineClient(flows.client, { taskQueue: flows.taskQueue });
    expect((await runs.send(p, [1])).status).toBe('accepted');
    const second = await runs.send(p, [2]);
    expect(second.status).toBe('deduplicated');
    const handle = flows.client.workflow.getHandle(second.runWorkflowId!);
    await waitFor('the deduplicated run to start', async () => (await handle.describe()) && true);
    await handle.result();
    expect(setFields((await handle.describe()).raw.workflowExecutionInfo?.priority)).toEqual({
      priorityKey: 2,
      fairnessKey: 'flows',
      fairnessWeight: 3,
    });
  });
});

/** The order in which a one-slot worker started the runs' steps, the first held until `release()`. */
function gatedSteps() {
  const order: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const steps = {
    async hold(label: string) {
      order.push(label);
      if (label === 'gate') await gate;
      return label;
    },
  };
  return { order, release, steps };
}

/**
 * One ordering case: a run whose step holds the only slot until released, then `backlog` runs (their
 * steps wait on the queue), then, once all of those are scheduled, `late` runs; each with its start option.
 * Returns the labels in the order the worker started them after the gate.
 */
async function orderAfterBacklog(
  name: string,
  backlog: { count: number; priority?: PriorityOptions },
  late: { count: number; priority?: PriorityOptions },
): Promise<string[]> {
  const taskQueue = `priority-order-${name}-${Date.now()}`;
  const p = pipeline(`priority-order-${taskQueue}`, { steps: ['hold'], timeout: '2m' }).step('hold');
  const { order, release, steps } = gatedSteps();
  const worker = await startWorker(taskQueue, steps, 1);
  const runs = new PipelineClient(client, { taskQueue });
  const start = (label: string, priority?: PriorityOptions) =>
    runs.start(p, [label], { workflowId: `${taskQueue}-${label}`, ...(priority ? { priority } : {}) });
  /** Waits until each run's step is scheduled (its task on the queue, or started). */
  const scheduled = (ids: string[]) =>
    waitFor(
      `${ids.length} steps scheduled`,
      async () => {
        const counts = await Promise.all(
          ids.map(async (id) => {
            const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
            return events.some((e) => e.activityTaskScheduledEventAttributes);
          }),
        );
        return counts.every(Boolean) ? true : undefined;
      },
      30_000,
    );
  try {
    const gate = await start('gate', backlog.priority);
    await waitFor('the gate step to hold the slot', async () => (order.length === 1 ? true : undefined));
    const first = await Promise.all(
      Array.from({ length: backlog.count }, (_, i) => start(`backlog-${i}`, backlog.priority)),
    );
    await scheduled(first.map((h) => h.workflowId));
    const second = await Promise.all(
      Array.from({ length: late.count }, (_, i) => start(`late-${i}`, late.priority)),
    );
    await scheduled(second.map((h) => h.workflowId));
    // Nothing else started meanwhile: the slot was held.
    expect(order).toEqual(['gate']);
    release();
    await Promise.all([gate, ...first, ...second].map((h) => h.result()));
    return order.slice(1);
  } finally {
    await stopWorker(worker);
  }
}

/** Where (0-based, among the steps started after the gate) each late run's step started. */
const latePlaces = (order: string[]) =>
  order.flatMap((label, place) => (label.startsWith('late-') ? [place] : []));

describe('priority and fairness, ordering on one slot', () => {
  const BACKLOG = 10;
  const LATE = 4;

  it(
    'starts runs of priority 1 started after a backlog of priority 5 before that backlog',
    { timeout: 60_000 },
    async () => {
      const order = await orderAfterBacklog(
        'priority',
        { count: BACKLOG, priority: { priority: 5 } },
        { count: LATE, priority: { priority: 1 } },
      );
      console.log(`priority 1 after a backlog of priority 5: ${order.join(' ')}`);
      expect(latePlaces(order)).toEqual([0, 1, 2, 3]);
    },
  );

  it(
    'starts runs of the same priority after the backlog (first in, first out: the oracle above fails here)',
    { timeout: 60_000 },
    async () => {
      const order = await orderAfterBacklog(
        'fifo',
        { count: BACKLOG, priority: { priority: 5 } },
        { count: LATE, priority: { priority: 5 } },
      );
      console.log(`priority 5 after a backlog of priority 5: ${order.join(' ')}`);
      expect(latePlaces(order)).toEqual([10, 11, 12, 13]);
    },
  );

  it(
    "serves a second tenant's runs among the first tenant's backlog, not after it",
    { timeout: 60_000 },
    async () => {
      const order = await orderAfterBacklog(
        'fairness',
        { count: BACKLOG, priority: { fairnessKey: 'tenant-a' } },
        { count: LATE, priority: { fairnessKey: 'tenant-b' } },
      );
      console.log(`tenant b after a backlog of tenant a: ${order.join(' ')}`);
      const places = latePlaces(order);
      console.log(`tenant b's places: ${places.join(', ')}`);
      // Equal weights: about one of b's for one of a's (first in, first out would put b's at 10 to 13).
      expect(places.at(-1)).toBeLessThanOrEqual(2 * LATE);
    },
  );

  it(
    "serves a tenant of weight 3 about three times as often as the backlog's tenant of weight 1",
    { timeout: 60_000 },
    async () => {
      const order = await orderAfterBacklog(
        'weights',
        { count: BACKLOG, priority: { fairnessKey: 'tenant-a' } },
        { count: LATE, priority: { fairnessKey: 'tenant-b', fairnessWeight: 3 } },
      );
      console.log(`tenant b (weight 3) after a backlog of tenant a: ${order.join(' ')}`);
      const places = latePlaces(order);
      console.log(`tenant b's places: ${places.join(', ')}`);
      expect(places.at(-1)).toBeLessThanOrEqual(LATE + 2);
    },
  );
});
