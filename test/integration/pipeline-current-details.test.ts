import { afterAll, beforeAll, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * A run's current details (what the Temporal UI shows on its page, from the SDK's built-in
 * `__temporal_workflow_metadata` query) are rendered when that query reads them, not at each change of the
 * run (src/workflows/run/current-details.ts): read here while a step runs and after the run ended (a
 * query the worker answers by replaying the run), they say where the run is at that moment. A client
 * with `runMetadata: false` starts runs without their summary and details.
 */

let release: (() => void) | undefined;
const steps = {
  async a(x: number) {
    return x + 1;
  },
  async held(x: number) {
    await new Promise<void>((r) => (release = r));
    return x;
  },
  async b(x: number) {
    return x * 10;
  },
};

let t: TestContext;
let pipelines: PipelineClient;

beforeAll(async () => {
  t = await connectTest('current-details');
  await t.startWorker(steps);
  pipelines = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  release?.();
  await t?.close();
});

const detailsOf = async (workflowId: string) =>
  (
    await t.client.workflow
      .getHandle(workflowId)
      .query<{ currentDetails: string }>('__temporal_workflow_metadata')
  ).currentDetails;

it('says where the run is when it is read: the running step and the steps done, then the end', async () => {
  const p = pipeline('details', { steps }).step('a').step('held').step('b');
  const handle = await pipelines.start(p, [1], { workflowId: t.uid('details') });
  await waitFor('the held step to run', async () => release);
  const running = await detailsOf(handle.workflowId);
  expect(running).toMatch(
    /^\*\*Pipeline:\*\* details\n\n\*\*Status:\*\* running\n\n\*\*Current step:\*\* held\n\n\*\*Done:\*\* a \(/,
  );
  release!();
  expect((await handle.result()).output).toBe(20);
  const ended = await detailsOf(handle.workflowId);
  expect(ended).toMatch(/\*\*Status:\*\* completed/);
  expect(ended).not.toContain('Current step');
  expect(ended).toMatch(/\*\*Done:\*\* a \(.*\), held \(.*\), b \(/);
});

it('a client with runMetadata: false starts runs without summary and details; the default has them', async () => {
  const p = pipeline('no-metadata', { steps }).step('a').step('b');
  const bare = new PipelineClient(t.client, { taskQueue: t.taskQueue, runMetadata: false });
  const firstEvent = async (client: PipelineClient) => {
    const handle = await client.start(p, [1], { workflowId: t.uid('metadata') });
    expect((await handle.result()).output).toBe(20);
    return (await handle.fetchHistory()).events![0]!;
  };
  expect((await firstEvent(bare)).userMetadata).toBeFalsy();
  expect((await firstEvent(pipelines)).userMetadata?.summary).toBeTruthy();
  expect(() => new PipelineClient(t.client, { taskQueue: t.taskQueue, runMetadata: 'no' as never })).toThrow(
    InvalidArgumentError,
  );
});
