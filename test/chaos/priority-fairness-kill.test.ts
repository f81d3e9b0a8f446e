import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readEnv } from '../../src/config';
import { freePort } from '../../src/devserver/ports';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { waitFor } from '../helpers/wait-for';
import { isRunning, sigkill, WorkerProcesses } from '../helpers/worker-processes';
import {
  askedPriority,
  CHILD_PRIORITY,
  inherit,
  prioritizedFor,
  readStepAttempts,
  runPriority,
  setFields,
  URGENT_PRIORITY,
  type ServerPriority,
} from '../fixtures/priority-pipeline';
import { killServer, startKillableServer, type KillableServer } from './killable-server';

/*
 * Priority and fairness when the worker, then the Temporal server, are SIGKILLed in the middle of a
 * prioritized backlog, on a server of the test's own with fairness on (back on its SQLite file): 24 runs of
 * the pipeline of test/fixtures/priority-pipeline.ts (work, an urgent step of priority 1, a child of
 * priority 5), each with its priority, fairness key and weight or none (`askedPriority`), on a worker
 * process with 2 activity slots (test/fixtures/priority-worker-process.ts). Once a quarter of the steps
 * returned, the worker dies with a step in flight and another takes over; at half, the server process dies
 * and comes back. Afterwards every run and child completed, each step completed exactly once by the
 * server's record, and the priorities held: the run's and the child's as asked, and every attempt, the
 * ones Temporal retried after a kill included, was handed the priority of its first.
 */

const RUNS = 24;
const SLOTS = 2;
const STEP_MS = 200;

let dir: string;
let log: string;
let cli: string;
let port: number;
let dbFile: string;
let taskQueue: string;
let server: KillableServer | undefined;
let worker: ChildProcess | undefined;
const workers = new WorkerProcesses('priority-worker-process.ts');

/** A worker process (test/fixtures/priority-worker-process.ts) on the killable server; resolves once it polls. */
const startWorker = () =>
  workers.startOn(
    { address: server!.address, namespace: 'default', taskQueue },
    log,
    String(SLOTS),
    String(STEP_MS),
  );

/** A client on the server as it is now (a new connection after a restart). */
async function withClient<T>(use: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: server!.address });
  try {
    return await use(new Client({ connection, namespace: 'default' }));
  } finally {
    await connection.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-priority-kill-'));
  log = path.join(dir, 'steps.log');
  cli = inject('temporalCli') || readEnv().temporalCli!;
  port = await freePort();
  dbFile = path.join(dir, 'priority-kill.db');
  taskQueue = `priority-kill-${Date.now()}`;
  server = await startKillableServer(cli, port, dbFile, { fairness: true });
  worker = await startWorker();
});
afterAll(async () => {
  await workers.killAll();
  if (server) await killServer(server);
  rmSync(dir, { recursive: true, force: true });
});

describe('priority and fairness when the worker and the server are SIGKILLed', () => {
  it(
    'completes every run of a prioritized backlog once, each attempt with the priority of its run',
    { timeout: 240_000 },
    async () => {
      const prefix = `pk${Date.now()}`;
      const runs = Array.from({ length: RUNS }, (_, i) => ({
        workflowId: `${prefix}-${i}`,
        asked: askedPriority('k', i),
      }));
      await withClient(async (client) => {
        const pipelines = new PipelineClient(client, { taskQueue });
        await Promise.all(
          runs.map(({ workflowId, asked }, i) =>
            pipelines.start(prioritizedFor(taskQueue), [i], {
              workflowId,
              ...(asked ? { priority: asked } : {}),
            }),
          ),
        );
      });
      const steps = RUNS * 3;
      const returned = () =>
        new Set(
          readStepAttempts(log)
            .filter((a) => a.returned)
            .map(stepOf),
        ).size;

      // A quarter of the steps returned and one in flight (begun within STEP_MS / 2: still running).
      const inFlight = () =>
        readStepAttempts(log).filter((a) => !a.returned && Date.now() - a.at < STEP_MS / 2);
      const caught = await waitFor(
        'a quarter of the steps returned, with one in flight',
        async () => (returned() >= steps / 4 && inFlight().length > 0 ? inFlight() : undefined),
        120_000,
      );
      const killed = worker!;
      expect(await sigkill(killed)).toBe('SIGKILL');
      worker = await startWorker();

      // Half of them returned: the server dies and comes back on its file.
      await waitFor(
        'half of the steps returned',
        async () => (returned() >= steps / 2 ? true : undefined),
        120_000,
      );
      const backlogAtServerKill = steps - returned();
      const killedAt = Date.now();
      await killServer(server!);
      server = await startKillableServer(cli, port, dbFile, { fairness: true });
      const downMs = Date.now() - killedAt;
      if (!isRunning(worker)) worker = await startWorker();

      const statuses = () =>
        withClient((client) =>
          Promise.all(
            runs
              .flatMap(({ workflowId }) => [workflowId, `${workflowId}/sub`])
              .map(async (id) => {
                const d = await client.workflow.getHandle(id).describe();
                return d.status.name;
              }),
          ),
        );
      try {
        await waitFor(
          'every run and child to complete',
          async () => ((await statuses()).every((s) => s === 'COMPLETED') ? true : undefined),
          150_000,
        );
      } catch (err) {
        throw new Error(
          `${(err as Error).message}: ${returned()} of ${steps} steps returned; statuses ${JSON.stringify(await statuses().catch((e: unknown) => String(e)))}`,
          { cause: err },
        );
      }

      const attempts = readStepAttempts(log);
      const ranAgain = attempts.filter((a) => a.attempt > 1);
      console.log(
        `worker killed with ${caught.length} steps in flight; server killed with ${backlogAtServerKill} of ${steps} steps to go, back after ${downMs} ms; ${ranAgain.length} attempts ran again (${attempts.length} attempts for ${steps} steps)`,
      );
      // The kill landed on a step in flight: Temporal ran it again, so the retried attempts are checked below.
      expect(ranAgain.length).toBeGreaterThan(0);
      // Every step returned at least once in a worker.
      expect(new Set(attempts.filter((a) => a.returned).map(stepOf)).size).toBe(steps);

      const seen = await withClient((client) =>
        Promise.all(
          runs.map(async ({ workflowId }) => {
            const handle = client.workflow.getHandle(workflowId);
            const child = client.workflow.getHandle(`${workflowId}/sub`);
            const [described, history, childDescribed, childHistory] = await Promise.all([
              handle.describe(),
              handle.fetchHistory(),
              child.describe(),
              child.fetchHistory(),
            ]);
            const events = history.events ?? [];
            const childEvents = childHistory.events ?? [];
            const count = (of: typeof events, which: (e: (typeof events)[number]) => unknown) =>
              of.filter((e) => which(e)).length;
            return {
              workflowId,
              started: setFields(events[0]?.workflowExecutionStartedEventAttributes?.priority),
              described: setFields(described.raw.workflowExecutionInfo?.priority),
              childDescribed: setFields(childDescribed.raw.workflowExecutionInfo?.priority),
              // Exactly once by the server's record.
              scheduled: count(events, (e) => e.activityTaskScheduledEventAttributes),
              completed: count(events, (e) => e.activityTaskCompletedEventAttributes),
              childScheduled: count(childEvents, (e) => e.activityTaskScheduledEventAttributes),
              childCompleted: count(childEvents, (e) => e.activityTaskCompletedEventAttributes),
              childrenStarted: count(events, (e) => e.childWorkflowExecutionStartedEventAttributes),
            };
          }),
        ),
      );
      expect(seen).toEqual(
        runs.map(({ workflowId, asked }) => {
          const run = runPriority(asked);
          return {
            workflowId,
            started: run,
            described: run,
            childDescribed: inherit(run, { priorityKey: CHILD_PRIORITY }),
            scheduled: 2,
            completed: 2,
            childScheduled: 1,
            childCompleted: 1,
            childrenStarted: 1,
          };
        }),
      );

      // Every attempt, first or retried, on the killed worker or the next, was handed its run's priority.
      const expectedOf = new Map<string, ServerPriority>(
        runs.flatMap(({ workflowId, asked }) => {
          const run = runPriority(asked);
          return [
            [`${workflowId} work`, run],
            [`${workflowId} urgent`, inherit(run, { priorityKey: URGENT_PRIORITY })],
            [`${workflowId}/sub work`, inherit(run, { priorityKey: CHILD_PRIORITY })],
          ];
        }),
      );
      const wrong = attempts.filter(
        (a) => JSON.stringify(a.priority) !== JSON.stringify(expectedOf.get(stepOf(a))),
      );
      expect(wrong).toEqual([]);
    },
  );
});

function stepOf(a: { workflowId: string; activityId: string }): string {
  return `${a.workflowId} ${a.activityId}`;
}
