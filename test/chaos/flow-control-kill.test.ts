import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readEnv } from '../../src/config';
import { freePort } from '../../src/devserver/ports';
import { ClientProcesses, type ClientProcess } from '../helpers/client-processes';
import { isRunning, sigkill, WorkerProcesses } from '../helpers/worker-processes';
import { waitFor } from '../helpers/temporal';
import { flowPipelines, type FlowPipelineName } from '../fixtures/flow-pipelines';
import { deliveredTwice, readRuns } from '../fixtures/flow-log';
import { killServer, startKillableServer, type KillableServer } from './killable-server';

/*
 * Debounce and batch when the worker, then the Temporal server, are SIGKILLed in the middle of their
 * windows: senders in 4 client processes send 600 events over about 8 s (a failed send is sent again with
 * its event id, as an application would); the worker dies a third of the way, the server two thirds of the
 * way (and comes back on the same port and SQLite file). Afterwards every event was in exactly one run:
 * nothing held in a window or a batch was lost, nothing was delivered twice.
 */

const PER_PROCESS = 150;
const GAP_MS = 50;

let dir: string;
let server: KillableServer | undefined;
const workers = new WorkerProcesses('flow-worker-process.ts');
const clients = new ClientProcesses('flow-client-process.ts');

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-flow-kill-'));
});
afterAll(async () => {
  await clients.killAll();
  await workers.killAll();
  if (server) await killServer(server);
  rmSync(dir, { recursive: true, force: true });
});

/** A worker process (test/fixtures/flow-worker-process.ts) on the killable server; resolves once it polls. */
/** A worker process (test/fixtures/flow-worker-process.ts) on the test's own server; resolves once it polls. */
const startWorker = (address: string, taskQueue: string, log: string) =>
  workers.startOn({ address, namespace: 'default', taskQueue }, log);

describe('debounce and batch when the worker and the server are SIGKILLed mid-window', () => {
  it(
    'delivers every event exactly once across a worker crash and a server crash',
    { timeout: 420_000 },
    async () => {
      const cli = inject('temporalCli') || readEnv().temporalCli!;
      const port = await freePort();
      const dbFile = path.join(dir, 'flow-kill.db');
      server = await startKillableServer(cli, port, dbFile);
      const taskQueue = `flow-kill-${Date.now()}`;
      const log = path.join(dir, 'runs.log');
      let worker = await startWorker(server.address, taskQueue, log);

      const prefix = `fk${Date.now()}`;
      const procs: [FlowPipelineName, ClientProcess][] = [];
      for (const which of ['debounce', 'batch'] as const) {
        for (let p = 0; p < 2; p++) {
          const proc = await clients.start([
            server.address,
            'default',
            taskQueue,
            which,
            prefix,
            `${which}${p}`,
            String(PER_PROCESS),
            String(GAP_MS),
            'yes',
          ]);
          procs.push([which, proc]);
        }
      }
      for (const [, p] of procs) p.go();
      const answered = () => procs.flatMap(([, p]) => p.lines.filter((l) => /^(sent|failed) /.test(l)));
      const total = procs.length * PER_PROCESS;

      await waitFor(
        'a third of the events answered',
        async () => (answered().length >= total / 3 ? true : undefined),
        120_000,
      );
      const runsBeforeWorkerKill = readRuns(log).size;
      await sigkill(worker);
      worker = await startWorker(server.address, taskQueue, log);

      await waitFor(
        'two thirds answered',
        async () => (answered().length >= (2 * total) / 3 ? true : undefined),
        120_000,
      );
      const runsBeforeServerKill = readRuns(log).size;
      await killServer(server);
      server = await startKillableServer(cli, port, dbFile);
      // The worker's polls fail while the server is down; a worker that gave up is started again.
      if (!isRunning(worker)) {
        await startWorker(server.address, taskQueue, log);
      }

      await waitFor(
        'every event answered',
        async () => (answered().length === total ? true : undefined),
        240_000,
      );
      expect(answered().filter((l) => !l.endsWith(' accepted'))).toEqual([]);
      const sent = new Set(answered().map((l) => l.split(' ')[1]!));
      const runs = await waitFor(
        'every event in a run',
        async () => {
          const r = readRuns(log);
          return [...r.values()].flat().length >= total ? r : undefined;
        },
        120_000,
      );
      console.log(
        `${total} events: ${runsBeforeWorkerKill} runs before the worker was killed, ${runsBeforeServerKill} before the server was, ${runs.size} in all`,
      );
      expect(deliveredTwice(runs)).toEqual([]);
      expect(new Set([...runs.values()].flat())).toEqual(sent);
      // Each pipeline's events went to its own runs.
      for (const [id, events] of runs) {
        const which = id.startsWith(`tflow-flow:${flowPipelines.batch.name}:`) ? 'batch' : 'debounce';
        expect(
          events.every((e) => e.startsWith(which)),
          id,
        ).toBe(true);
      }
    },
  );
});
