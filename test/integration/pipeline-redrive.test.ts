import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { RedriveError } from '../../src/client/dead-letters/dead-letters';
import type { PipelineRunInput } from '../../src/workflows/run-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

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
  async audit(order: { id: string }) {
    calls.push(`audit:${order.id}`);
    return `audited ${order.id}`;
  },
  async receipt(text: string) {
    calls.push(`receipt:${text}`);
    return `receipt: ${text}`;
  },
};

let t: TestContext;
let client: PipelineClient;
const checkout = pipeline('checkout', { steps }).step('fetch').step('charge').step('receipt');

beforeAll(async () => {
  t = await connectTest('redrive');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());
beforeEach(() => {
  calls = [];
  broken = true;
});

async function failedRun(): Promise<string> {
  const workflowId = t.uid('checkout');
  await expect(client.run(checkout, ['order-7'], { workflowId })).rejects.toBeInstanceOf(WorkflowFailedError);
  return workflowId;
}

describe('dead letters and redrive', () => {
  it('lists the failed run as a dead letter, with its pipeline name', async () => {
    const workflowId = await failedRun();
    const letter = await waitFor('the failed run in visibility', async () =>
      (await client.listDeadLetters({ pipeline: 'checkout' })).find((d) => d.workflowId === workflowId),
    );
    expect(letter).toMatchObject({ workflowId, pipeline: 'checkout' });
    expect(letter.closeTime).toBeInstanceOf(Date);
    expect((await client.listDeadLetters({ pipeline: 'other' })).map((d) => d.workflowId)).not.toContain(
      workflowId,
    );
  });

  it('redrives from the failed step with its recorded input and finishes, without re-running earlier steps', async () => {
    const workflowId = await failedRun();
    expect(calls).toEqual(['fetch:order-7', 'charge:order-7']);
    broken = false;
    const handle = await client.redrive(workflowId);
    const result = await handle.result();
    expect(result.output).toBe('receipt: charged 10 for order-7');
    expect(result.steps.map((s) => s.id)).toEqual(['charge', 'receipt']);
    expect(calls).toEqual([
      'fetch:order-7',
      'charge:order-7',
      'charge:order-7',
      'receipt:charged 10 for order-7',
    ]);
    const { workflowId: redriveId } = handle;
    expect(redriveId.startsWith(`${workflowId}-redrive-`)).toBe(true);
    const [first] = (await t.client.workflow.getHandle(redriveId).fetchHistory()).events!;
    const started = first!.workflowExecutionStartedEventAttributes!;
    expect(started.workflowType?.name).toBe('pipelineWorkflow');
    const input = defaultPayloadConverter.fromPayload<PipelineRunInput>(started.input!.payloads![0]!);
    expect(input.args).toEqual([{ id: 'order-7', amount: 10 }]);
    expect(input.redrive).toMatchObject({ fromStep: 'charge', workflowId });
    expect(input.spec).toEqual(checkout.spec);
    const desc = await t.client.workflow.getHandle(redriveId).describe();
    expect(desc.typedSearchAttributes.get({ name: 'TflowPipeline', type: 'KEYWORD' })).toBe('checkout');
  });

  it('redrives from an earlier step with that step’s recorded input', async () => {
    const workflowId = await failedRun();
    broken = false;
    const handle = await client.redrive(workflowId, { fromStep: 'fetch', workflowId: t.uid('again') });
    expect((await handle.result()).output).toBe('receipt: charged 10 for order-7');
    expect(calls.slice(2)).toEqual(['fetch:order-7', 'charge:order-7', 'receipt:charged 10 for order-7']);
  });

  it('redrives a failed parallel group as a whole, from the group’s recorded input', async () => {
    const fanOut = pipeline('checkout-fan', { steps })
      .step('fetch')
      .parallel(['charge', 'audit'], { id: 'pay' });
    const workflowId = t.uid('fan');
    await expect(client.run(fanOut, ['order-9'], { workflowId })).rejects.toBeInstanceOf(WorkflowFailedError);
    broken = false;
    const handle = await client.redrive(workflowId);
    expect((await handle.result()).output).toEqual(['charged 10 for order-9', 'audited order-9']);
    expect(calls.filter((c) => c.startsWith('fetch'))).toEqual(['fetch:order-9']);
    expect(calls.filter((c) => c.startsWith('audit'))).toEqual(['audit:order-9', 'audit:order-9']);
  });

  it('refuses to redrive from a step that never started, or a run that did not fail', async () => {
    const workflowId = await failedRun();
    await expect(client.redrive(workflowId, { fromStep: 'receipt' })).rejects.toThrow(
      new RedriveError(
        workflowId,
        'step "receipt" did not start in that run; redrive from one of "fetch", "charge"',
      ),
    );
    broken = false;
    const okId = t.uid('ok');
    await client.run(checkout, ['order-8'], { workflowId: okId });
    await expect(client.redrive(okId)).rejects.toThrow(
      `cannot redrive run "${okId}": its status is COMPLETED; only failed runs (listDeadLetters()) can be redriven`,
    );
  });
});
