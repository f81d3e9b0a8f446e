import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readEnv } from '../../src/config';
import { freePort } from '../../src/devserver/ports';
import {
  concurrencyTotalSemaphoreId,
  holdersQuery,
  waitingQuery,
} from '../../src/workflows/semaphore/semaphore-defs';
import { isRunning, WorkerProcesses } from '../helpers/worker-processes';
import { ClientProcesses, type ClientProcess } from '../helpers/client-processes';
import { waitFor } from '../helpers/temporal';
import { cappedFor, PER_KEY, TOTAL } from '../fixtures/capped-pipeline';
import { mostAtOnce, mostOfAKey, readAttempts, semaphoreDiagnosis } from '../fixtures/capped-log';
import { killServer, startKillableServer, type KillableServer } from './killable-server';

/*
 * Capped keys under a global cap when the Temporal server is SIGKILLed in the middle: 80 runs over 6 keys
 * (2 per key, 5 in all) from 2 client processes; once a quarter are done, with slots held and dozens of
 * runs in line, the server process dies (nothing flushed) and comes back on the same port and SQLite file.
 * Nothing is lost (every run completes), nothing runs twice by the server's record (each run's step
 * completed once in its history), neither limit is passed (each attempt the worker ran counts while it ran),
 * and no waiter or slot is left behind.
 */

const PROCESSES = 2;
const PER_PROCESS = 40;
const KEYS = 6;
const STEP_MS = 400;

let dir: string;
let server: KillableServer | undefined;
const workers = new WorkerProcesses('capped-worker-process.ts');
/** When each worker process exited (a worker that gave up while the server was down). */
const exitedAt = new Map<number, number>();
const clients = new ClientProcesses('capped-client-process.ts');

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-capped-server-kill-'));
});
afterAll(async () => {
  await clients.killAll();
  await workers.killAll();
  if (server) await killServer(server);
  rmSync(dir, { recursive: true, force: true });
});

/** A worker process (test/fixtures/capped-worker-process.ts) on the killable server; resolves once it polls. */
async function startWorker(address: string, taskQueue: string, log: string): Promise<ChildProcess> {
  const child = await workers.startOn({ address, namespace: 'default', taskQueue }, log);
  child.once('exit', () => exitedAt.set(child.pid!, Date.now()));
  return child;
}

describe('capped keys when the Temporal server is SIGKILLed', () => {
  it(
    'loses no run, completes none twice and passes neither limit when the server dies with slots held and runs in line',
    { timeout: 480_000 },
    async () => {
      const cli = inject('temporalCli') || readEnv().temporalCli!;
      const port = await freePort();
      const dbFile = path.join(dir, 'capped-server-kill.db');
      server = await startKillableServer(cli, port, dbFile);
      const taskQueue = `capped-server-kill-${Date.now()}`;
      const log = path.join(dir, 'server-kill.log');
      const worker = await startWorker(server.address, taskQueue, log);

      const prefix = `csk${Date.now()}`;
      const procs: ClientProcess[] = await Promise.all(
        Array.from({ length: PROCESSES }, (_, p) =>
          clients.start([
            server!.address,
            'default',
            taskQueue,
            prefix,
            `p${p}`,
            String(PER_PROCESS),
            String(KEYS),
            String(STEP_MS),
            'yes',
          ]),
        ),
      );
      for (const p of procs) p.go();
      const total = PROCESSES * PER_PROCESS;
      const linesOf = (kind: string) => procs.flatMap((p) => p.lines.filter((l) => l.startsWith(`${kind} `)));

      /** Waits for `what`; a timeout says what the semaphore was doing. */
      const waitOrSay = async (what: string, probe: () => Promise<true | undefined>, ms: number) => {
        try {
          await waitFor(what, probe, ms);
        } catch (err) {
          const connection = await Connection.connect({ address: server!.address });
          try {
            const client = new Client({ connection, namespace: 'default' });
            const id = concurrencyTotalSemaphoreId(cappedFor(taskQueue).name);
            const done = readAttempts(log).filter((a) => a.returned).length;
            throw new Error(
              `${(err as Error).message} (${linesOf('started').length} started, ${done} of ${total} steps returned); ${await semaphoreDiagnosis(client, id)}`,
              { cause: err },
            );
          } finally {
            await connection.close();
          }
        }
      };

      // In the middle: every run started, a quarter done, a step running (slots held, runs in line).
      await waitOrSay(
        'every run started, a quarter of them returned, with a step running',
        async () => {
          const attempts = readAttempts(log);
          return linesOf('started').length === total &&
            attempts.filter((a) => a.returned).length >= total / 4 &&
            attempts.some((a) => !a.returned)
            ? true
            : undefined;
        },
        240_000,
      );
      const doneBefore = linesOf('done').length;
      const killedAt = Date.now();
      await killServer(server);
      server = await startKillableServer(cli, port, dbFile);
      const downMs = Date.now() - killedAt;
      // The worker's polls fail while the server is down; a worker that gave up is started again.
      if (!isRunning(worker)) await startWorker(server.address, taskQueue, log);

      await waitOrSay(
        'every run to end',
        async () => (linesOf('done').length + linesOf('failed').length === total ? true : undefined),
        300_000,
      );
      expect(linesOf('failed')).toEqual([]);

      const attempts = readAttempts(log, exitedAt);
      const ranAgain = attempts.filter((a) => a.attempt > 1);
      console.log(
        `server killed with ${doneBefore} of ${total} runs done, back after ${downMs} ms: ${ranAgain.length} attempts ran again, ` +
          `at most ${mostAtOnce(attempts)} in all at once (limit ${TOTAL}), ${mostOfAKey(attempts).most} of a key (limit ${PER_KEY})`,
      );
      const connection = await Connection.connect({ address: server.address });
      try {
        const client = new Client({ connection, namespace: 'default' });
        // Nothing twice, by the server's record: each run's step completed once.
        const labels = procs.flatMap((_, p) => Array.from({ length: PER_PROCESS }, (_, i) => `p${p}-${i}`));
        const holdCompleted = await Promise.all(
          labels.map(async (label) => {
            const history = await client.workflow.getHandle(`${prefix}-${label}`).fetchHistory();
            const events = history.events ?? [];
            const holds = new Set(
              events
                .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'hold')
                .map((e) => String(e.eventId)),
            );
            return events.filter(
              (e) =>
                e.activityTaskCompletedEventAttributes &&
                holds.has(String(e.activityTaskCompletedEventAttributes.scheduledEventId)),
            ).length;
          }),
        );
        expect(holdCompleted.filter((n) => n !== 1)).toEqual([]);
        // Every run's step returned in the worker at least once.
        expect(new Set(attempts.filter((a) => a.returned).map((a) => a.label))).toEqual(new Set(labels));
        // Never over either limit, counting every attempt the worker ran while it ran.
        expect(mostAtOnce(attempts)).toBeLessThanOrEqual(TOTAL);
        expect(mostOfAKey(attempts).most).toBeLessThanOrEqual(PER_KEY);
        // No waiter left behind, no slot kept.
        const semaphore = client.workflow.getHandle(concurrencyTotalSemaphoreId(cappedFor(taskQueue).name));
        expect(await semaphore.query(waitingQuery)).toEqual([]);
        expect(await semaphore.query(holdersQuery)).toEqual([]);
      } finally {
        await connection.close();
      }
    },
  );
});
