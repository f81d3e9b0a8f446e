import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  concurrencyTotalSemaphoreId,
  holdersQuery,
  waitingQuery,
} from '../../src/workflows/semaphore/semaphore-defs';
import { ClientProcesses } from '../helpers/client-processes';
import { sigkill, WorkerProcesses } from '../helpers/worker-processes';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { cappedFor, PER_KEY, TOTAL } from '../fixtures/capped-pipeline';
import { mostAtOnce, mostOfAKey, readAttempts, semaphoreDiagnosis } from '../fixtures/capped-log';

/*
 * Capped keys under a global cap when the worker is SIGKILLed in the middle: the worker that runs the
 * steps, the semaphore and the slot requests dies while 5 runs hold slots and dozens wait; another worker
 * takes over. Nothing is lost (every run completes), nothing runs twice (each run's step returns once; only
 * the attempts the kill cut short are tried again), and neither limit is passed, counting each cut-short
 * attempt as holding its slot until its process died.
 */

const PROCESSES = 2;
const PER_PROCESS = 40;
const KEYS = 6;
const STEP_MS = 400;

let t: TestContext;
let dir: string;
const clients = new ClientProcesses('capped-client-process.ts');
const workers = new WorkerProcesses('capped-worker-process.ts');

beforeAll(async () => {
  t = await connectTest('capped-kill');
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-capped-kill-'));
});
/** The worker processes still running (WorkerProcesses.stopAll waits for the exit of a killed one). */
afterAll(async () => {
  await clients.killAll();
  await workers.killAll();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** SIGKILLs a worker process; resolves with when it had died. */
async function killWorker(child: ChildProcess): Promise<number> {
  expect(await sigkill(child)).toBe('SIGKILL');
  return Date.now();
}

describe('capped keys when the worker is SIGKILLed', () => {
  it(
    'loses no run, runs none twice and passes neither limit when the worker dies with slots held and runs in line',
    { timeout: 420_000 },
    async () => {
      const log = path.join(dir, 'kill.log');
      const first = await workers.start(t, log);
      const prefix = t.uid('kill');
      const procs = await Promise.all(
        Array.from({ length: PROCESSES }, (_, p) =>
          clients.start([
            inject('temporalAddress'),
            t.namespace,
            t.taskQueue,
            prefix,
            `p${p}`,
            String(PER_PROCESS),
            String(KEYS),
            String(STEP_MS),
          ]),
        ),
      );
      for (const p of procs) p.go();
      const total = PROCESSES * PER_PROCESS;

      const semaphoreId = concurrencyTotalSemaphoreId(cappedFor(t.taskQueue).name);
      /** Waits for `what`; a timeout says what the semaphore was doing. */
      const waitOrSay = async (what: string, probe: () => Promise<true | undefined>, ms: number) => {
        try {
          await waitFor(what, probe, ms);
        } catch (err) {
          const done = readAttempts(log).filter((a) => a.returned).length;
          throw new Error(
            `${(err as Error).message} (${done} of ${total} steps returned); ${await semaphoreDiagnosis(t.client, semaphoreId)}`,
            { cause: err },
          );
        }
      };

      // In the middle: a quarter of the runs done, slots held, the rest in line.
      // In a step, so that the kill cuts one short (a moment when every slot is between runs would not).
      await waitOrSay(
        'a quarter of the runs to return, with a step running',
        async () => {
          const attempts = readAttempts(log);
          return attempts.filter((a) => a.returned).length >= total / 4 && attempts.some((a) => !a.returned)
            ? true
            : undefined;
        },
        240_000,
      );
      const running = readAttempts(log).filter((a) => !a.returned).length;
      const killedAt = await killWorker(first);
      await workers.start(t, log);

      const outcomes = () => procs.flatMap((p) => p.lines.filter((l) => /^(done|failed) /.test(l)));
      const semaphore = t.client.workflow.getHandle(semaphoreId);
      await waitOrSay(
        'every run to end',
        async () => (outcomes().length === total ? true : undefined),
        360_000,
      );
      expect(outcomes().filter((l) => l.startsWith('failed'))).toEqual([]);

      const attempts = readAttempts(log, new Map([[first.pid!, killedAt]]));
      const returned = attempts.filter((a) => a.returned);
      const cutShort = attempts.filter((a) => !a.returned);
      console.log(
        `worker killed with ${running} steps running: ${cutShort.length} attempts cut short and tried again, ` +
          `at most ${mostAtOnce(attempts)} in all at once (limit ${TOTAL}), ${mostOfAKey(attempts).most} of a key (limit ${PER_KEY})`,
      );
      // Nothing lost: every run's step returned.
      const labels = procs.flatMap((_, p) => Array.from({ length: PER_PROCESS }, (_, i) => `p${p}-${i}`));
      expect([...new Set(returned.map((a) => a.label))].sort()).toEqual([...labels].sort());
      // Nothing twice, as Temporal records it: each run's step completed once in its history.
      const completions = await Promise.all(
        labels.map(async (label) => {
          const { events } = await t.client.workflow.getHandle(`${prefix}-${label}`).fetchHistory();
          // The step's completions (the run's other activities, the semaphore's, are not counted).
          const hold = new Set(
            events!
              .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'hold')
              .map((e) => String(e.eventId)),
          );
          return events!.filter((e) =>
            hold.has(String(e.activityTaskCompletedEventAttributes?.scheduledEventId ?? '')),
          ).length;
        }),
      );
      expect(completions.filter((n) => n !== 1)).toEqual([]);
      // A step returns twice only where an activity is at least once: it returned on the killed worker,
      // whose report of it had not reached the server when the process died, and a later attempt ran on
      // the new worker.
      const returnedTwice = labels.filter((l) => returned.filter((a) => a.label === l).length > 1);
      for (const label of returnedTwice) {
        const [lost, again, ...more] = returned
          .filter((a) => a.label === label)
          .sort((a, b) => a.attempt - b.attempt);
        expect(more).toEqual([]);
        expect(lost!.pid).toBe(first.pid);
        expect(again!.pid).not.toBe(first.pid);
        expect(again!.attempt).toBeGreaterThan(lost!.attempt);
      }
      if (returnedTwice.length > 0)
        console.log(
          `returned on the killed worker, its completion lost, and ran again: ${returnedTwice.length} (` +
            returnedTwice
              .map(
                (l) =>
                  `${l} ${killedAt - returned.find((a) => a.label === l && a.pid === first.pid)!.end!} ms before the kill`,
              )
              .join(', ') +
            ')',
        );
      // Only what the kill cut short was tried again: on the dead worker, each followed by a returned retry.
      for (const a of cutShort) {
        expect(a.pid).toBe(first.pid);
        expect(returned.find((r) => r.label === a.label)!.attempt).toBeGreaterThan(a.attempt);
      }
      expect(cutShort.length).toBeGreaterThan(0);
      // Never over either limit, a cut-short attempt holding its slot until its worker died.
      expect(mostAtOnce(attempts)).toBeLessThanOrEqual(TOTAL);
      expect(mostOfAKey(attempts).most).toBeLessThanOrEqual(PER_KEY);
      // No waiter left behind, no slot kept.
      expect(await semaphore.query(waitingQuery)).toEqual([]);
      expect(await semaphore.query(holdersQuery)).toEqual([]);
    },
  );
});
