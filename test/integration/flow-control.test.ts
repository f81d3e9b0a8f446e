import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Context } from '@temporalio/activity';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { InvalidArgumentError } from '../../src/errors';
import { flowControlWorkflowId, pendingQuery } from '../../src/workflows/flow-control/flow-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Debounce, batch, throttle and dedupe by key, each read back from what the runs received: events go in
 * with PipelineClient.send, runs come out of the key's flow-control workflow.
 */

/** What each run's step received, by the run's workflow id, in the order the steps ran. */
const received = new Map<string, unknown[]>();
const steps = {
  async take(...args: unknown[]) {
    received.set(Context.current().info.workflowExecution!.workflowId, args);
    return args.length;
  },
};

let t: TestContext;
let client: PipelineClient;

beforeAll(async () => {
  t = await connectTest('flow-control');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

/** The runs of one flow control so far: [workflow id, args], in the order they were started. */
const runsOf = (flowId: string) =>
  [...received.entries()]
    .filter(([id]) => id.startsWith(`${flowId}:`))
    .sort(([a], [b]) => Number(a.split(':').pop()) - Number(b.split(':').pop()));

describe('flow control by key', () => {
  it('debounce (last): one run, once the key is quiet, with the last event’s args; other keys apart', async () => {
    const p = pipeline('debounce-last', {
      steps,
      debounce: { key: ([user]) => String(user), period: '1500ms' },
    }).step('take');
    const [a, b] = [t.uid('a'), t.uid('b')];
    for (let i = 0; i < 5; i++) await client.send(p, [a, i]);
    await client.send(p, [b, 'only']);
    const flowA = flowControlWorkflowId('debounce-last', a);
    const flowB = flowControlWorkflowId('debounce-last', b);
    await waitFor('both keys’ runs', async () =>
      runsOf(flowA).length === 1 && runsOf(flowB).length === 1 ? true : undefined,
    );
    expect(runsOf(flowA).map(([, args]) => args)).toEqual([[a, 4]]);
    expect(runsOf(flowB).map(([, args]) => args)).toEqual([[b, 'only']]);
    // Nothing waits any more.
    expect(await t.client.workflow.getHandle(flowA).query(pendingQuery)).toMatchObject({
      events: 0,
      started: 1,
    });
  });

  it('debounce (all) with maxWait: a steady stream is cut by maxWait; the runs get every event once, in order', async () => {
    const p = pipeline('debounce-all', {
      steps,
      debounce: { period: '2s', maxWait: '3s', deliver: 'all' },
    }).step('take');
    const sent: number[] = [];
    const until = Date.now() + 8000;
    for (let i = 0; Date.now() < until; i++) {
      await client.send(p, [i]);
      sent.push(i);
      await new Promise((r) => setTimeout(r, 400));
    }
    const flow = flowControlWorkflowId('debounce-all', '');
    const delivered = await waitFor('every event in a run', async () => {
      const all = runsOf(flow).flatMap(([, [events]]) => (events as unknown[][]).map(([i]) => i));
      return all.length >= sent.length ? all : undefined;
    });
    expect(delivered).toEqual(sent);
    // A quiet period never came within the stream (an event every 400 ms, the period 2 s), so one window
    // could not hold it all: maxWait cut it. Not a count of cuts: a timer fires late on a loaded server.
    expect(runsOf(flow).length).toBeGreaterThanOrEqual(2);
  });

  it('batch: full batches at once, the rest after maxWait, each event in one run', async () => {
    const p = pipeline('batch-orders', { steps, batch: { maxSize: 5, maxWait: '2s' } }).step('take');
    const receipts = await Promise.all(Array.from({ length: 12 }, (_, i) => client.send(p, [i])));
    expect(receipts.every((r) => r.status === 'accepted')).toBe(true);
    const flow = flowControlWorkflowId('batch-orders', '');
    await waitFor('three runs', async () => (runsOf(flow).length === 3 ? true : undefined));
    const batches = runsOf(flow).map(([, [events]]) => (events as unknown[][]).map(([i]) => i));
    expect(batches.map((b) => b.length)).toEqual([5, 5, 2]);
    expect(batches.flat().sort((x, y) => Number(x) - Number(y))).toEqual(
      Array.from({ length: 12 }, (_, i) => i),
    );
  });

  it('throttle: every event runs, at most 2 runs started in any 2 s', async () => {
    const p = pipeline('throttle-calls', { steps, throttle: { limit: 2, period: '2s' } }).step('take');
    for (let i = 0; i < 6; i++) await client.send(p, [i]);
    const flow = flowControlWorkflowId('throttle-calls', '');
    await waitFor('six runs', async () => (runsOf(flow).length === 6 ? true : undefined), 60_000);
    expect(runsOf(flow).map(([, [i]]) => i)).toEqual([0, 1, 2, 3, 4, 5]);
    const starts = await Promise.all(
      runsOf(flow).map(async ([id]) =>
        (await t.client.workflow.getHandle(id).describe()).startTime.getTime(),
      ),
    );
    // The flow control starts a run no sooner than 2 s after the one two before it; a start reaches the
    // server a little after the flow control's timer fired, so each gap is measured with 250 ms to spare.
    for (let i = 2; i < starts.length; i++) expect(starts[i]! - starts[i - 2]!).toBeGreaterThan(2000 - 250);
  });

  it('dedupe: events of a key within the window start one run; each sender is told which', async () => {
    const p = pipeline('dedupe-sync', {
      steps,
      dedupe: { key: ([id]) => String(id), window: '1m' },
    }).step('take');
    const key = t.uid('doc');
    const receipts = await Promise.all(Array.from({ length: 8 }, (_, i) => client.send(p, [key, i])));
    expect(receipts.filter((r) => r.status === 'accepted')).toHaveLength(1);
    const flow = flowControlWorkflowId('dedupe-sync', key);
    await waitFor('the run', async () => (runsOf(flow).length === 1 ? true : undefined));
    const runId = runsOf(flow)[0]![0];
    expect(receipts.filter((r) => r.status === 'deduplicated').map((r) => r.runWorkflowId)).toEqual(
      Array(7).fill(runId),
    );
  });

  it('an event sent again with its id is taken once', async () => {
    const p = pipeline('batch-resend', { steps, batch: { maxSize: 3, maxWait: '1s' } }).step('take');
    await client.send(p, ['x'], { eventId: 'e-1' });
    await client.send(p, ['x again'], { eventId: 'e-1' });
    await client.send(p, ['y'], { eventId: 'e-2' });
    const flow = flowControlWorkflowId('batch-resend', '');
    await waitFor('the batch', async () => (runsOf(flow).length === 1 ? true : undefined));
    expect(runsOf(flow)[0]![1]).toEqual([[['x'], ['y']]]);
  });

  it('refuses a key function that throws, naming the option, before sending anything', async () => {
    const p = pipeline('bad-flow-key', {
      steps,
      debounce: {
        key: () => {
          throw new Error('no tenant');
        },
        period: '1s',
      },
    }).step('take');
    const err = await client.send(p, [1]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect(err).toMatchObject({
      field: 'debounce.key',
      message: 'the debounce.key of pipeline "bad-flow-key" threw on args [1]: no tenant',
    });
    const plain = pipeline('no-flow', { steps }).step('take');
    await expect(client.send(plain, [1])).rejects.toMatchObject({ field: 'pipeline' });
  });
});
