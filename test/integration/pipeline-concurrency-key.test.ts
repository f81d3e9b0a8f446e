import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineClient, type PipelineRunHandle } from '../../src/client/runs/pipeline-client';
import { InvalidArgumentError } from '../../src/errors';
import { concurrencySemaphoreId, waitingQuery } from '../../src/workflows/semaphore/semaphore-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * `pipeline(name, { concurrencyKey, maxConcurrent })`: at most N runs per key at once; the others wait,
 * in the order they asked, and other keys are not held up.
 */

// A key of this test's own: the semaphore of a key lives on the task queue of the run that created it.
const acme = `acme-${Date.now()}`;
const globex = `globex-${Date.now()}`;
let gateOpen = false;
let active = 0;
let mostActive = 0;
const started: string[] = [];

const steps = {
  async work(customer: string, n: number) {
    started.push(`${customer}#${n}`);
    active += customer === acme ? 1 : 0;
    mostActive = Math.max(mostActive, active);
    while (!gateOpen) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 50));
    active -= customer === acme ? 1 : 0;
    return `${customer}#${n}`;
  },
};

let t: TestContext;
let client: PipelineClient;
const perCustomer = pipeline('per-customer', {
  steps,
  concurrencyKey: ([customer]) => String(customer),
  maxConcurrent: 2,
}).step('work');

beforeAll(async () => {
  t = await connectTest('concurrency-key');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

describe('concurrency keys', () => {
  it(
    'runs at most 2 of 10 runs of one key at once; the others wait, in the order they asked',
    { timeout: 180_000 },
    async () => {
      const semaphore = t.client.workflow.getHandle(concurrencySemaphoreId('per-customer', acme));
      const handles: PipelineRunHandle[] = [];
      for (let n = 0; n < 10; n++) {
        const handle = await client.start(perCustomer, [acme, n]);
        handles.push(handle);
        if (n < 2) {
          await waitFor(`run ${n} in its step`, async () =>
            started.includes(`${acme}#${n}`) ? true : undefined,
          );
        } else {
          await waitFor(`run ${n} in line`, async () =>
            (await semaphore.query(waitingQuery)).some((w) => w.workflowId === handle.workflowId)
              ? true
              : undefined,
          );
        }
      }
      expect(started).toEqual([`${acme}#0`, `${acme}#1`]);
      // Another key is not held up by a full one.
      const other = await client.start(perCustomer, [globex, 0]);
      await waitFor('the other key’s run in its step', async () =>
        started.includes(`${globex}#0`) ? true : undefined,
      );

      gateOpen = true;
      const outputs = await Promise.all(handles.map(async (h) => (await h.result()).output));
      expect(outputs).toEqual(Array.from({ length: 10 }, (_, n) => `${acme}#${n}`));
      expect((await other.result()).output).toBe(`${globex}#0`);
      expect(mostActive).toBe(2);
      // Slots are granted in line order; two granted at the same moment may start their steps either way
      // round, so each run starts within one place of its place in line.
      const order = started.filter((s) => s.startsWith(acme)).map((s) => Number(s.split('#')[1]));
      expect(order.map((n, place) => Math.abs(n - place)).every((d) => d <= 1)).toBe(true);
    },
  );

  it('refuses a key function that returns no string, before starting anything', async () => {
    const bad = pipeline('bad-key', { steps, concurrencyKey: () => 42 as unknown as string }).step('work');
    await expect(client.start(bad, ['acme', 1])).rejects.toThrow(
      new InvalidArgumentError(
        'concurrencyKey',
        'the concurrencyKey of pipeline "bad-key" must return a non-empty string, got 42 for args ["acme",1]',
      ),
    );
  });
});
