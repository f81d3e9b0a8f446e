import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readEnv } from '../../src/config';
import { freePort } from '../../src/devserver/ports';
import { flowControlWorkflowId } from '../../src/workflows/flow-control/flow-defs';
import { ClientProcesses, type ClientProcess } from '../helpers/client-processes';
import { isRunning, sigkill, WorkerProcesses } from '../helpers/worker-processes';
import { waitFor } from '../helpers/temporal';
import {
  DEBOUNCE_KEYS,
  DEDUPE_WINDOW_MS,
  flowPipelines,
  THROTTLE_LIMIT,
  THROTTLE_PERIOD_MS,
  type FlowPipelineName,
} from '../fixtures/flow-pipelines';
import {
  dedupeViolations,
  deliveredTwice,
  readRuns,
  stepsInFlight,
  stepsRunAgain,
  throttleViolations,
} from '../fixtures/flow-log';
import { killServer, startKillableServer, type KillableServer } from './killable-server';

/*
 * Throttle and dedupe by key when many senders race and the worker, then the Temporal server, are SIGKILLed
 * in the middle of a window: 4 client processes (test/fixtures/flow-client-process.ts) send hundreds of
 * events over 4 keys (a failed send is sent again with its event id, as an application would); the worker
 * process dies with a run's step in flight while the throttle still holds events back (a third of the runs'
 * steps ran), or while dedupe windows are open (a third of the events answered), and another takes over; at
 * two thirds the server process dies and comes back on the same port and SQLite file. Afterwards: nothing
 * lost (every event answered; every accepted event's step ran, those caught in flight by the kill again;
 * every deduplicated event names a run of its key whose step ran), nothing run twice (no event in two runs,
 * one event per run), and the bound kept: at most THROTTLE_LIMIT runs of a key started in any
 * THROTTLE_PERIOD_MS, runs of a deduped key at least DEDUPE_WINDOW_MS apart, judged on the runs' start
 * times as the server recorded them (what a user sees), with no slack: since FLOW_STARTED_AT_PATCH the flow
 * control counts a run's start from the task that saw it started, which is at or after that time.
 *
 * A step the killed worker had in flight is retried by Temporal only at its attempt timeout: the fixture's
 * steps have a 5 s `timeout` (the default 10 minutes outlasts the wait; the first version of this test,
 * without it, timed out with an accepted event's run open and its step "started" on the dead worker).
 */

const PROCESSES = 4;

let dir: string;
let log: string;
let cli: string;
let port: number;
let dbFile: string;
let taskQueue: string;
let server: KillableServer | undefined;
let worker: ChildProcess | undefined;
const workers = new WorkerProcesses('flow-worker-process.ts');
const clients = new ClientProcesses('flow-client-process.ts');

/** A worker process (test/fixtures/flow-worker-process.ts) on the killable server; resolves once it polls. */
const startWorker = () => workers.startOn({ address: server!.address, namespace: 'default', taskQueue }, log);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-flow-td-'));
  log = path.join(dir, 'runs.log');
  cli = inject('temporalCli') || readEnv().temporalCli!;
  port = await freePort();
  dbFile = path.join(dir, 'flow-td.db');
  taskQueue = `flow-td-kill-${Date.now()}`;
  server = await startKillableServer(cli, port, dbFile);
  worker = await startWorker();
});
afterAll(async () => {
  await clients.killAll();
  await workers.killAll();
  if (server) await killServer(server);
  rmSync(dir, { recursive: true, force: true });
});

/** The worker processes SIGKILLed so far (their ids, which the server names as `<pid>@<host>`). */
const killedPids: number[] = [];

/**
 * Waits until `ready()` and a step of `which` is in flight (begun within the last 500 ms, so it is still
 * running when the kill lands: it takes ONE_STEP_MS), then SIGKILLs the worker process at once and starts
 * another. Returns the steps caught in flight, as `<run workflow id> <attempt>`.
 */
async function crashWorkerMidStep(
  what: string,
  which: FlowPipelineName,
  prefix: string,
  ready: () => boolean,
): Promise<string[]> {
  const ofMine = flowControlWorkflowId(flowPipelines[which].name, prefix);
  const caught = await waitFor(
    `${what}, with a step in flight`,
    async () => {
      if (!ready()) return undefined;
      const inFlight = stepsInFlight(log, 500).filter((s) => s.startsWith(ofMine));
      return inFlight.length > 0 ? inFlight : undefined;
    },
    120_000,
  );
  const child = worker!;
  expect(await sigkill(child)).toBe('SIGKILL');
  killedPids.push(child.pid!);
  worker = await startWorker();
  return caught;
}

/** The steps caught in flight by a worker kill that did not run again to the end (attempt > 1). */
function notRunAgain(caught: string[]): string[] {
  const again = new Set(stepsRunAgain(log).map((s) => s.split(' ')[0]));
  return caught.filter((s) => !again.has(s.split(' ')[0]));
}

/** SIGKILLs the server process and starts it again on its port and file; a worker that gave up meanwhile is replaced. */
async function crashServer(): Promise<void> {
  await killServer(server!);
  server = await startKillableServer(cli, port, dbFile);
  if (!isRunning(worker!)) worker = await startWorker();
}

async function withClient<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address: server!.address });
  try {
    return await fn(new Client({ connection, namespace: 'default' }));
  } finally {
    await connection.close();
  }
}

/** Starts the senders of `which` (not yet sending: call go()); `gapMs` between one process's events. */
async function senders(
  which: FlowPipelineName,
  prefix: string,
  perProcess: number,
  gapMs: number,
): Promise<ClientProcess[]> {
  return Promise.all(
    Array.from({ length: PROCESSES }, (_, p) =>
      clients.start([
        server!.address,
        'default',
        taskQueue,
        which,
        prefix,
        `${which}${p}`,
        String(perProcess),
        String(gapMs),
        'yes',
      ]),
    ),
  );
}

/** `sent <label> <status> [<run>]` lines of these processes, by label. */
function answers(procs: ClientProcess[]): Map<string, { status: string; run?: string }> {
  const out = new Map<string, { status: string; run?: string }>();
  for (const p of procs) {
    for (const line of p.lines) {
      const [kind, label, status, run] = line.split(' ');
      if (kind === 'sent') out.set(label!, { status: status!, ...(run ? { run } : {}) });
      else if (kind === 'failed') out.set(label!, { status: `failed: ${line}` });
    }
  }
  return out;
}

/** The event's key, as the client process computes it: `<prefix>-k<i mod DEBOUNCE_KEYS>`. */
const keyOf = (prefix: string, label: string) =>
  `${prefix}-k${Number(label.split('-').pop()) % DEBOUNCE_KEYS}`;

/**
 * The runs a flow control started (read from the history of every execution of its chain: it continues as
 * new), each with its start time as the server recorded it (the run's own WorkflowExecutionStarted, what
 * the UI and `describe` show), in start order.
 */
async function runStarts(client: Client, flowId: string): Promise<{ workflowId: string; at: number }[]> {
  const latest = await client.workflow.getHandle(flowId).fetchHistory();
  const first = latest.events![0]!.workflowExecutionStartedEventAttributes!.firstExecutionRunId ?? undefined;
  const ids: string[] = [];
  for (let runId = first; runId;) {
    const history = await client.workflow.getHandle(flowId, runId).fetchHistory();
    runId = undefined;
    for (const e of history.events ?? []) {
      const started = e.startChildWorkflowExecutionInitiatedEventAttributes;
      if (started) ids.push(started.workflowId!);
      const next = e.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (next) runId = next;
    }
  }
  const starts = await Promise.all(
    ids.map(async (workflowId) => ({
      workflowId,
      at: (await client.workflow.getHandle(workflowId).describe()).startTime.getTime(),
    })),
  );
  return starts.sort((a, b) => a.at - b.at);
}

/**
 * The runs of `which` with this prefix still open, each with its pending steps (state, attempt, the worker
 * that has it): what a timed-out wait for the steps reports.
 */
async function openRuns(which: FlowPipelineName, prefix: string): Promise<string[]> {
  return withClient(async (client) => {
    const out: string[] = [];
    const query = `WorkflowType = 'pipelineWorkflow' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH '${flowControlWorkflowId(flowPipelines[which].name, prefix)}'`;
    for await (const run of client.workflow.list({ query })) {
      const { raw } = await client.workflow.getHandle(run.workflowId).describe();
      const steps = (raw.pendingActivities ?? []).map(
        (a) =>
          `${a.activityType?.name} ${PENDING_STATES[a.state ?? 0] ?? String(a.state)} attempt ${a.attempt} on ${a.lastWorkerIdentity || 'no worker'}`,
      );
      out.push(`${run.workflowId}: ${steps.join(', ') || 'no pending step'}`);
      if (out.length >= 10) break;
    }
    return out;
  });
}

/** PendingActivityState's names, by number. */
const PENDING_STATES = [
  'unspecified',
  'scheduled',
  'started',
  'cancel requested',
  'paused',
  'pause requested',
];

/** Waits until the log holds `count` runs of `which`; a timeout names the runs still open and their steps. */
async function stepsRan(
  which: FlowPipelineName,
  prefix: string,
  count: number,
): Promise<Map<string, string[]>> {
  const mine = () =>
    [...readRuns(log)].filter(([id]) =>
      id.startsWith(flowControlWorkflowId(flowPipelines[which].name, prefix)),
    );
  try {
    return new Map(
      await waitFor(
        `the steps of ${count} runs`,
        async () => (mine().length >= count ? mine() : undefined),
        60_000,
      ),
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}: ${mine().length} ran; workers killed: ${killedPids.map((p) => `${p}@`).join(', ')}; open runs: ${(await openRuns(which, prefix)).join('; ') || 'none'}`,
      { cause: err },
    );
  }
}

/** How many steps of these runs ran again (an attempt lost with the killed worker, retried at its timeout). */
const again = (which: FlowPipelineName, prefix: string) =>
  stepsRunAgain(log).filter((s) => s.startsWith(flowControlWorkflowId(flowPipelines[which].name, prefix)))
    .length;

describe('throttle and dedupe by key with racing senders, the worker and the server SIGKILLed mid-window', () => {
  it('the oracles catch a seeded bad case: a throttle over its limit, dedupe runs within a window, an event run twice', () => {
    // 11 starts 90 ms apart: the 11th is within 1 s of the first (limit 10).
    const tooFast = Array.from({ length: 11 }, (_, i) => i * 90);
    expect(throttleViolations(tooFast, 10, 1000)).toEqual(['run 0 at 0 and run 10 at 900']);
    expect(throttleViolations([...tooFast.slice(0, 10), 1000], 10, 1000)).toEqual([]);
    expect(dedupeViolations([0, 1000, 1999], 1000)).toEqual(['run 1 at 1000 and run 2 at 1999']);
    expect(dedupeViolations([0, 1000, 2000], 1000)).toEqual([]);
    expect(
      deliveredTwice(
        new Map([
          ['r1', ['a']],
          ['r2', ['a']],
        ]),
      ),
    ).toEqual(['a x2']);
  });

  it(
    `throttle: ${PROCESSES * 50} events sent at once over ${DEBOUNCE_KEYS} keys all run, once each, at most ${THROTTLE_LIMIT} of a key per ${THROTTLE_PERIOD_MS} ms, across a worker kill and a server kill`,
    { timeout: 300_000 },
    async () => {
      const perProcess = 50;
      const total = PROCESSES * perProcess;
      const prefix = `thr${Date.now()}`;
      const procs = await senders('throttle', prefix, perProcess, 0);
      for (const p of procs) p.go();
      const ran = () =>
        [...readRuns(log).keys()].filter((id) =>
          id.startsWith(flowControlWorkflowId(flowPipelines.throttle.name, prefix)),
        ).length;

      // In the middle: a third of the runs' steps ran, the rest held back by the throttle, a step running.
      const caught = await crashWorkerMidStep(
        'a third of the runs',
        'throttle',
        prefix,
        () => ran() >= total / 3,
      );
      const beforeWorkerKill = ran();
      await waitFor(
        'two thirds of the runs',
        async () => (ran() >= (2 * total) / 3 ? true : undefined),
        120_000,
      );
      const beforeServerKill = ran();
      await crashServer();
      expect(beforeServerKill).toBeLessThan(total);

      await waitFor(
        'every event answered',
        async () => (answers(procs).size === total ? true : undefined),
        180_000,
      );
      const answered = answers(procs);
      expect([...answered.values()].filter((a) => a.status !== 'accepted')).toEqual([]);
      const runs = await stepsRan('throttle', prefix, total);
      // Nothing lost, nothing twice: one event per run, each accepted event in exactly one run, of its key.
      expect(deliveredTwice(runs)).toEqual([]);
      expect([...runs.values()].filter((events) => events.length !== 1)).toEqual([]);
      expect(new Set([...runs.values()].flat())).toEqual(new Set(answered.keys()));
      // The steps the killed worker had in flight ran again (Temporal's retry at the step's timeout).
      expect(notRunAgain(caught)).toEqual([]);
      for (const [id, [label]] of runs) {
        expect(
          id.startsWith(`${flowControlWorkflowId(flowPipelines.throttle.name, keyOf(prefix, label!))}:`),
          id,
        ).toBe(true);
      }
      // The bound, per key, on the runs' start times as the server recorded them.
      let most = 0;
      await withClient(async (client) => {
        for (let k = 0; k < DEBOUNCE_KEYS; k++) {
          const starts = await runStarts(
            client,
            flowControlWorkflowId(flowPipelines.throttle.name, `${prefix}-k${k}`),
          );
          expect(starts).toHaveLength(
            [...answered.keys()].filter((l) => keyOf(prefix, l) === `${prefix}-k${k}`).length,
          );
          const times = starts.map((s) => s.at);
          expect(throttleViolations(times, THROTTLE_LIMIT, THROTTLE_PERIOD_MS)).toEqual([]);
          for (let i = 0; i < times.length; i++) {
            most = Math.max(
              most,
              times.filter((x) => x >= times[i]! && x < times[i]! + THROTTLE_PERIOD_MS).length,
            );
          }
        }
      });
      console.log(
        `throttle: ${total} events, ${beforeWorkerKill} runs' steps ran before the worker was killed, ${beforeServerKill} before the server was, ${runs.size} in all (${caught.length} caught in flight by the worker kill, ${again('throttle', prefix)} steps ran again); at most ${most} runs of a key started in ${THROTTLE_PERIOD_MS} ms (limit ${THROTTLE_LIMIT})`,
      );
    },
  );

  it(
    `dedupe: ${PROCESSES * 100} events over ${DEBOUNCE_KEYS} keys: one run per key per window, every other event told which run, across a worker kill and a server kill`,
    { timeout: 300_000 },
    async () => {
      const perProcess = 100;
      const total = PROCESSES * perProcess;
      const prefix = `ddp${Date.now()}`;
      // 100 events 25 ms apart per process: 2.5 s of events, a few windows of each key.
      const procs = await senders('dedupe', prefix, perProcess, 25);
      for (const p of procs) p.go();

      const caught = await crashWorkerMidStep(
        'a third of the events answered',
        'dedupe',
        prefix,
        () => answers(procs).size >= total / 3,
      );
      const beforeWorkerKill = answers(procs).size;
      await waitFor(
        'two thirds of the events answered',
        async () => (answers(procs).size >= (2 * total) / 3 ? true : undefined),
        120_000,
      );
      const beforeServerKill = answers(procs).size;
      await crashServer();
      expect(beforeServerKill).toBeLessThan(total);

      await waitFor(
        'every event answered',
        async () => (answers(procs).size === total ? true : undefined),
        180_000,
      );
      const answered = answers(procs);
      expect(
        [...answered.values()].filter((a) => a.status !== 'accepted' && a.status !== 'deduplicated'),
      ).toEqual([]);
      const accepted = [...answered].filter(([, a]) => a.status === 'accepted').map(([label]) => label);
      const runs = await stepsRan('dedupe', prefix, accepted.length);
      // Nothing twice: each accepted event in exactly one run, one event per run.
      expect(deliveredTwice(runs)).toEqual([]);
      expect([...runs.values()].filter((events) => events.length !== 1)).toEqual([]);
      expect(new Set([...runs.values()].flat())).toEqual(new Set(accepted));
      expect(notRunAgain(caught)).toEqual([]);
      // Nothing lost: every other event names a run of its own key, which ran.
      for (const [label, a] of answered) {
        if (a.status !== 'deduplicated') continue;
        expect(runs.has(a.run!), `${label} -> ${a.run}`).toBe(true);
        expect(
          a.run!.startsWith(`${flowControlWorkflowId(flowPipelines.dedupe.name, keyOf(prefix, label))}:`),
        ).toBe(true);
      }
      // The bound, per key: runs at least a window apart, by the server's record of their starts.
      await withClient(async (client) => {
        for (let k = 0; k < DEBOUNCE_KEYS; k++) {
          const starts = await runStarts(
            client,
            flowControlWorkflowId(flowPipelines.dedupe.name, `${prefix}-k${k}`),
          );
          expect(
            dedupeViolations(
              starts.map((s) => s.at),
              DEDUPE_WINDOW_MS,
            ),
          ).toEqual([]);
        }
      });
      console.log(
        `dedupe: ${total} events, ${beforeWorkerKill} answered before the worker was killed, ${beforeServerKill} before the server was; ${accepted.length} runs (${caught.length} caught in flight by the worker kill, ${again('dedupe', prefix)} steps ran again), ${total - accepted.length} deduplicated`,
      );
    },
  );
});
