import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApplicationFailure, WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { DeadLetterNotFoundError, RedriveError } from '../../src/client/dead-letters/dead-letters';
import {
  deadLetterWorkflowId,
  type DeadLetterResolution,
} from '../../src/workflows/dead-letters/dead-letter-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * The dead-letter queue outlives the failed run: its keeper workflow holds what a redrive needs, so a
 * letter is redriven after the failed run's history was deleted (what the namespace's retention does).
 */

let calls: string[] = [];
let broken = true;

const steps = {
  async fetch(id: string) {
    calls.push(`fetch:${id}`);
    return { id, amount: 10 };
  },
  async charge(order: { id: string; amount: number }) {
    calls.push(`charge:${order.id}`);
    if (broken) {
      throw ApplicationFailure.create({ type: 'Down', message: 'payment service down', nonRetryable: true });
    }
    return `charged ${order.amount} for ${order.id}`;
  },
  async receipt(text: string) {
    calls.push(`receipt:${text}`);
    return `receipt: ${text}`;
  },
};

let t: TestContext;
let client: PipelineClient;
const checkout = pipeline('dlq-checkout', { steps }).step('fetch').step('charge').step('receipt');

beforeAll(async () => {
  t = await connectTest('dead-letters');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());
beforeEach(() => {
  calls = [];
  broken = true;
});

async function failedRun(order: string): Promise<string> {
  const workflowId = t.uid('checkout');
  await expect(client.run(checkout, [order], { workflowId })).rejects.toBeInstanceOf(WorkflowFailedError);
  return workflowId;
}

const queued = (workflowId: string) =>
  waitFor(`dead letter ${workflowId} in the queue`, async () =>
    (await client.listDeadLetters({ pipeline: 'dlq-checkout' })).find((d) => d.workflowId === workflowId),
  );

const gone = (workflowId: string) =>
  waitFor(`dead letter ${workflowId} out of the queue`, async () =>
    (await client.listDeadLetters({ pipeline: 'dlq-checkout' })).some((d) => d.workflowId === workflowId)
      ? undefined
      : true,
  );

async function deleteHistory(workflowId: string): Promise<void> {
  const { runId } = await t.client.workflow.getHandle(workflowId).describe();
  await t.client.workflowService.deleteWorkflowExecution({
    namespace: t.namespace,
    workflowExecution: { workflowId, runId },
  });
  await waitFor(
    `history of ${workflowId} deleted`,
    async () => {
      try {
        await t.client.workflow.getHandle(workflowId).describe();
        return undefined;
      } catch (err) {
        return err instanceof WorkflowNotFoundError ? true : undefined;
      }
      // The server deletes in a background task: seconds on a quiet server, more on a busy one.
    },
    90_000,
  );
}

describe('dead-letter queue', () => {
  it('redrives a dead letter after the failed run’s history was deleted, and the letter leaves the queue', async () => {
    const workflowId = await failedRun('order-1');
    const letter = await queued(workflowId);
    expect(letter).toMatchObject({
      workflowId,
      lastWorkflowId: workflowId,
      pipeline: 'dlq-checkout',
      failedStep: 'charge',
      message: 'payment service down',
      failures: 1,
    });
    await deleteHistory(workflowId);

    broken = false;
    const handle = await client.redrive(workflowId);
    expect((await handle.result()).output).toBe('receipt: charged 10 for order-1');
    expect(calls).toEqual([
      'fetch:order-1',
      'charge:order-1',
      'charge:order-1',
      'receipt:charged 10 for order-1',
    ]);
    const resolution = (await t.client.workflow
      .getHandle(deadLetterWorkflowId(workflowId))
      .result()) as DeadLetterResolution;
    expect(resolution).toEqual({
      status: 'redriven',
      workflowId: handle.workflowId,
      runId: expect.any(String),
    });
    await gone(workflowId);
    await expect(client.redrive(workflowId)).rejects.toThrow(
      new RedriveError(
        workflowId,
        `its dead letter was already redriven by run "${handle.workflowId}", which completed`,
      ),
    );
  });

  it('keeps the letter when its redrive fails again, with the new failure and every recorded step input', async () => {
    const workflowId = await failedRun('order-2');
    await queued(workflowId);
    const again = await client.redrive(workflowId);
    await expect(again.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    const letter = await waitFor('the letter updated by the failed redrive', async () => {
      const l = (await client.listDeadLetters({ pipeline: 'dlq-checkout' })).find(
        (d) => d.workflowId === workflowId,
      );
      return l?.failures === 2 ? l : undefined;
    });
    expect(letter.lastWorkflowId).toBe(again.workflowId);
    // The failed redrive started at `charge`; `fetch` is still known from the first run.
    broken = false;
    calls = [];
    const handle = await client.redrive(workflowId, { fromStep: 'fetch' });
    expect((await handle.result()).output).toBe('receipt: charged 10 for order-2');
    expect(calls).toEqual(['fetch:order-2', 'charge:order-2', 'receipt:charged 10 for order-2']);
    await gone(workflowId);
  });

  it('discards a letter: it leaves the queue and can no longer be redriven', async () => {
    const workflowId = await failedRun('order-3');
    await queued(workflowId);
    const entry = await client.discard(workflowId, { reason: 'refunded by hand' });
    expect(entry).toMatchObject({ letterId: workflowId, details: { failedStep: 'charge' } });
    await gone(workflowId);
    await expect(client.redrive(workflowId)).rejects.toThrow(
      new RedriveError(workflowId, 'its dead letter was discarded (refunded by hand)'),
    );
    await expect(client.discard(workflowId)).rejects.toThrow(new DeadLetterNotFoundError(workflowId));
    await expect(client.discard(t.uid('never-failed'))).rejects.toBeInstanceOf(DeadLetterNotFoundError);
  });

  it('files one letter per failure even when two redrives of it race', async () => {
    const workflowId = await failedRun('order-4');
    await queued(workflowId);
    const [a, b] = await Promise.all([client.redrive(workflowId), client.redrive(workflowId)]);
    await Promise.all([expect(a.result()).rejects.toThrow(), expect(b.result()).rejects.toThrow()]);
    const letter = await waitFor('both failures on the letter', async () => {
      const l = (await client.listDeadLetters({ pipeline: 'dlq-checkout' })).find(
        (d) => d.workflowId === workflowId,
      );
      return l?.failures === 3 ? l : undefined;
    });
    expect([a.workflowId, b.workflowId]).toContain(letter.lastWorkflowId);
    const letters = (await client.listDeadLetters({ pipeline: 'dlq-checkout' })).filter(
      (d) => d.workflowId === workflowId,
    );
    expect(letters).toHaveLength(1);
  });

  it('lists the letters of a pipeline whose name has quotes and backslashes (the filter escapes both)', async () => {
    // Ends in a backslash: escaped as it was (quotes only), it ate the closing quote of the query.
    const name = `dlq-odd 'quoted' C:\\temp\\ ${t.uid('p')}\\`;
    const odd = pipeline(name, { steps }).step('fetch').step('charge');
    const workflowId = t.uid('odd');
    await expect(client.run(odd, ['order-5'], { workflowId })).rejects.toBeInstanceOf(WorkflowFailedError);
    const letter = await waitFor(`dead letter ${workflowId} listed by its pipeline`, async () =>
      (await client.listDeadLetters({ pipeline: name })).find((d) => d.workflowId === workflowId),
    );
    expect(letter.pipeline).toBe(name);
    // The same name with a backslash less is another pipeline: nothing of it in the queue.
    expect(await client.listDeadLetters({ pipeline: name.slice(0, -1) })).toEqual([]);
  });

  it('a pipeline filter is one literal: a name written as query syntax lists no other pipeline', async () => {
    const workflowId = await failedRun('order-6');
    await queued(workflowId);
    // Escaped as it was (quotes only), `\'` ended the literal and the rest ran as a condition of its own.
    const injected = "nope\\' OR ExecutionStatus = 1 #";
    expect(await client.listDeadLetters({ pipeline: injected })).toEqual([]);
  });
});
