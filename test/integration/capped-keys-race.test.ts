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
import { WorkerProcesses } from '../helpers/worker-processes';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { cappedFor, PER_KEY, TOTAL } from '../fixtures/capped-pipeline';
import { mostAtOnce, mostOfAKey, readAttempts, semaphoreDiagnosis } from '../fixtures/capped-log';

/*
 * "Never more than either limit at once, no waiter left behind": 200 runs of a pipeline with 2 per key
 * and 5 in all, over 8 keys, started at the same moment by 4 client processes
 * (test/fixtures/capped-client-process.ts) against one worker process (capped-worker-process.ts).
 */

const PROCESSES = 4;
const PER_PROCESS = 50;
const KEYS = 8;
const STEP_MS = 150;

let t: TestContext;
let dir: string;
const clients = new ClientProcesses('capped-client-process.ts');
const workers = new WorkerProcesses('capped-worker-process.ts');

beforeAll(async () => {
  t = await connectTest('capped-race');
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-capped-'));
});
afterAll(async () => {
  await clients.killAll();
  await workers.stopAll();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('capped keys under a global cap, racing', () => {
  it(
    `runs each of ${PROCESSES * PER_PROCESS} runs started at once from ${PROCESSES} client processes exactly once, never more than ${PER_KEY} of a key or ${TOTAL} in all at once`,
    { timeout: 420_000 },
    async () => {
      const log = path.join(dir, 'race.log');
      await workers.start(t, log);
      const prefix = t.uid('race');
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
      const outcomes = () => procs.flatMap((p) => p.lines.filter((l) => /^(done|failed) /.test(l)));
      const semaphore = t.client.workflow.getHandle(concurrencyTotalSemaphoreId(cappedFor(t.taskQueue).name));
      try {
        // 200 steps of 150 ms, 5 at a time: 6 s of steps; the rest is the starts and grants on 2 cores.
        await waitFor(
          'every run to end',
          async () => (outcomes().length === total ? true : undefined),
          360_000,
        );
      } catch (err) {
        throw new Error(
          `${(err as Error).message}: ${outcomes().length} of ${total} runs ended; ${await semaphoreDiagnosis(t.client, semaphore.workflowId)}`,
          { cause: err },
        );
      }
      expect(outcomes().filter((l) => l.startsWith('failed'))).toEqual([]);

      const attempts = readAttempts(log);
      // Exactly once: one attempt per run, and it returned.
      expect(attempts).toHaveLength(total);
      expect(new Set(attempts.map((a) => a.label)).size).toBe(total);
      expect(attempts.every((a) => a.returned && a.attempt === 1)).toBe(true);
      const most = mostAtOnce(attempts);
      const ofAKey = mostOfAKey(attempts);
      console.log(
        `${total} racing runs over ${KEYS} keys: at most ${most} at once in all (limit ${TOTAL}), ${ofAKey.most} of key ${ofAKey.key} (limit ${PER_KEY})`,
      );
      expect(most).toBeLessThanOrEqual(TOTAL);
      expect(ofAKey.most).toBeLessThanOrEqual(PER_KEY);
      // The limit was reached: the bound, not a lack of traffic, kept the count down.
      expect(most).toBe(TOTAL);
      // No waiter left behind, no slot kept.
      expect(await semaphore.query(waitingQuery)).toEqual([]);
      expect(await semaphore.query(holdersQuery)).toEqual([]);
    },
  );
});
