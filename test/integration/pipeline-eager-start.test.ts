import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApplicationFailure, Client, WorkflowFailedError } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { connectTest, type TestContext } from '../helpers/temporal';

let broken = false;
const steps = {
  async add(x: number) {
    return x + 1;
  },
  async twice(x: number) {
    if (broken) {
      throw ApplicationFailure.create({ type: 'Down', message: 'service down', nonRetryable: true });
    }
    return x * 2;
  },
};
const addThenTwice = pipeline('eager-add-twice', { steps }).step('add').step('twice');

let t: TestContext;
/**
 * A client on the NativeConnection the worker polls with: what eager start needs. `eagerlyStarted` on the
 * handle is the server's word (its start response carried the run's first workflow task); the shared dev
 * server allows eager start (the Temporal CLI's default).
 */
let sharedClient: Client;

beforeAll(async () => {
  t = await connectTest('eager-start');
  await t.startWorker(steps);
  sharedClient = new Client({ connection: t.nativeConnection, namespace: t.namespace });
});
afterAll(async () => t?.close());
beforeEach(() => {
  broken = false;
});

describe('eager workflow start', () => {
  it('a PipelineClient on the worker’s NativeConnection starts the run eagerly, and the run completes', async () => {
    const pipelines = new PipelineClient(sharedClient, { taskQueue: t.taskQueue, steps });
    const handle = await pipelines.start(addThenTwice, [4], { workflowId: t.uid('eager') });
    expect(handle.eagerlyStarted).toBe(true);
    const result = await handle.result();
    expect(result).toMatchObject({ status: 'completed', output: 10 });
  });

  it('eagerStart: false on the same connection starts through the task queue', async () => {
    const pipelines = new PipelineClient(sharedClient, { taskQueue: t.taskQueue, steps, eagerStart: false });
    const handle = await pipelines.start(addThenTwice, [1], { workflowId: t.uid('not-eager') });
    expect(handle.eagerlyStarted).toBe(false);
    expect((await handle.result()).output).toBe(4);
  });

  it('a PipelineClient on a plain Connection starts runs as usual, without eager start or an error', async () => {
    const pipelines = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
    const handle = await pipelines.start(addThenTwice, [2], { workflowId: t.uid('plain') });
    expect(handle.eagerlyStarted).toBe(false);
    expect((await handle.result()).output).toBe(6);
    // Asking explicitly changes nothing: a plain Connection cannot take an eager task.
    const asked = new PipelineClient(t.client, { taskQueue: t.taskQueue, eagerStart: true });
    expect(await asked.run(addThenTwice, [3], { workflowId: t.uid('plain-asked') })).toBe(8);
  });

  it('a redrive through the shared connection starts eagerly too', async () => {
    const pipelines = new PipelineClient(sharedClient, { taskQueue: t.taskQueue, steps });
    broken = true;
    const workflowId = t.uid('eager-redrive');
    await expect(pipelines.run(addThenTwice, [5], { workflowId })).rejects.toBeInstanceOf(
      WorkflowFailedError,
    );
    broken = false;
    const handle = await pipelines.redrive(workflowId);
    expect(handle.eagerlyStarted).toBe(true);
    expect((await handle.result()).output).toBe(12);
  });
});
