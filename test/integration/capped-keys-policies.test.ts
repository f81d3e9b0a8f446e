import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CancelledFailure, WorkflowFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { pipeline } from '../../src/pipeline';
import { PipelineClient, type PipelineRunHandle } from '../../src/client/runs/pipeline-client';
import { listRuns } from '../../src/client/runs/run-list';
import {
  concurrencySemaphoreId,
  concurrencyTotalSemaphoreId,
  holdersQuery,
  waitingQuery,
} from '../../src/workflows/semaphore/semaphore-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * What a run does when its key or the pipeline's total is full (`whenFull`), and the round-robin across
 * keys under `maxConcurrentTotal`, each read back from the server: the run's status, the semaphore's line.
 */

const started: string[] = [];
/** `start:<label>` and `end:<label>`, in the order they happened. */
const events: string[] = [];
const opened = new Set<string>();

const steps = {
  /** Holds until `label` is opened; a cancelled run's step ends when its heartbeat learns it. */
  async hold(_key: string, label: string) {
    started.push(label);
    events.push(`start:${label}`);
    try {
      while (!opened.has(label)) {
        Context.current().heartbeat();
        await Promise.race([Context.current().sleep(50), Context.current().cancelled]);
      }
      return label;
    } finally {
      events.push(`end:${label}`);
    }
  },
};

let t: TestContext;
let client: PipelineClient;

beforeAll(async () => {
  t = await connectTest('capped-policies');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  for (const label of started) opened.add(label);
  await t?.close();
});

const keyed = (name: string, options: Parameters<typeof pipeline>[1]) =>
  pipeline(name, {
    steps,
    concurrencyKey: ([k]) => String(k),
    timeout: '5m',
    ...options,
  }).step('hold', { heartbeat: '1s' });

const stepStarted = (label: string) =>
  waitFor(`${label} in its step`, async () => (started.includes(label) ? true : undefined));

/** The failure a run's result rejects with, for a run that ends cancelled. */
async function cancelledFailure(handle: PipelineRunHandle): Promise<unknown> {
  const err = await handle.result().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause;
}

describe('whenFull', () => {
  it('skip: a run of a full key ends skipped (reason concurrency) and runs no step', async () => {
    const p = keyed('full-skip', { maxConcurrent: 1, whenFull: 'skip' });
    const key = t.uid('skip');
    const holder = await client.start(p, [key, `${key}-holder`]);
    await stepStarted(`${key}-holder`);
    const late = await client.start(p, [key, `${key}-late`]);
    expect(await late.result()).toEqual({ status: 'skipped', skipReason: 'concurrency', steps: [] });
    expect(started).not.toContain(`${key}-late`);
    // Listings say so too (the outcome search attribute).
    const listed = await waitFor('the skipped run listed', async () => {
      const runs = await listRuns(t.client, { pipeline: 'full-skip', limit: 50 });
      return runs.find((r) => r.workflowId === late.workflowId && r.status === 'skipped');
    });
    expect(listed.skipReason).toBe('concurrency');
    opened.add(`${key}-holder`);
    expect((await holder.result()).status).toBe('completed');
  });

  it('cancel-newest: a run of a full key ends cancelled by the server’s record, and the holder goes on', async () => {
    const p = keyed('full-cancel-newest', { maxConcurrent: 1, whenFull: 'cancel-newest' });
    const key = t.uid('newest');
    const holder = await client.start(p, [key, `${key}-holder`]);
    await stepStarted(`${key}-holder`);
    const late = await client.start(p, [key, `${key}-late`]);
    expect(await cancelledFailure(late)).toBeInstanceOf(CancelledFailure);
    expect((await late.describe()).status.name).toBe('CANCELLED');
    expect(started).not.toContain(`${key}-late`);
    opened.add(`${key}-holder`);
    expect((await holder.result()).output).toBe(`${key}-holder`);
  });

  it('cancel-in-progress: the oldest run of a full key is cancelled, and the newest takes its slot once it is given back', async () => {
    const p = keyed('full-cancel-progress', { maxConcurrent: 1, whenFull: 'cancel-in-progress' });
    const key = t.uid('progress');
    const old = await client.start(p, [key, `${key}-old`]);
    await stepStarted(`${key}-old`);
    const newer = await client.start(p, [key, `${key}-new`]);
    expect(await cancelledFailure(old)).toBeInstanceOf(CancelledFailure);
    await stepStarted(`${key}-new`);
    // Never both at once: the old step had ended before the new one started.
    expect(events.indexOf(`end:${key}-old`)).toBeGreaterThanOrEqual(0);
    expect(events.indexOf(`end:${key}-old`)).toBeLessThan(events.indexOf(`start:${key}-new`));
    opened.add(`${key}-new`);
    expect((await newer.result()).output).toBe(`${key}-new`);
    const semaphore = t.client.workflow.getHandle(concurrencySemaphoreId('full-cancel-progress', key));
    await waitFor('the slot given back', async () =>
      (await semaphore.query(holdersQuery)).length === 0 ? true : undefined,
    );
  });
});

describe('maxConcurrentTotal', () => {
  it('serves the keys round-robin: a run of another key goes before the third run of a flooding key', async () => {
    const p = keyed('rr-total', { maxConcurrent: 1, maxConcurrentTotal: 1 });
    const semaphore = t.client.workflow.getHandle(concurrencyTotalSemaphoreId('rr-total'));
    const a = t.uid('A');
    const b = t.uid('B');
    const handles: PipelineRunHandle[] = [];
    const labels = [`${a}-0`, `${a}-1`, `${a}-2`, `${a}-3`, `${b}-0`];
    for (const label of labels) {
      const handle = await client.start(p, [label.startsWith(a) ? a : b, label]);
      handles.push(handle);
      if (label === `${a}-0`) await stepStarted(label);
      else {
        await waitFor(`${label} in line`, async () =>
          (await semaphore.query(waitingQuery)).some((w) => w.workflowId === handle.workflowId)
            ? true
            : undefined,
        );
      }
    }
    // Opened one at a time: each run starts only when the one before has ended (total 1).
    const order: string[] = [];
    for (let i = 0; i < labels.length; i++) {
      const next = await waitFor('the next run in its step', async () =>
        started.find((l) => labels.includes(l) && !order.includes(l)),
      );
      order.push(next);
      opened.add(next);
    }
    await Promise.all(handles.map((h) => h.result()));
    // First come first served would be A0 A1 A2 A3 B0.
    expect(order).toEqual([`${a}-0`, `${a}-1`, `${b}-0`, `${a}-2`, `${a}-3`]);
  });
});
