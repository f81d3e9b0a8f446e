import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { listFlowControls, type FlowControlListing } from '../../src/client/runs/flow-list';
import { WorkerMetrics } from '../../src/worker/metrics';
import { flowControlWorkflowId } from '../../src/workflows/flow-control/flow-defs';
import { tflow } from '../helpers/cli';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * Pending flow-controlled work where people look for it: `tflow flows` (table and JSON) and the worker's
 * Prometheus metrics (WorkerMetrics.watchFlows), both read from the flow controls themselves.
 */

const steps = {
  async take(events: unknown[]) {
    return events.length;
  },
};

let t: TestContext;
let client: PipelineClient;
const name = `pending-batch-${Date.now()}`;
const held = pipeline(name, {
  steps,
  batch: { key: ([tenant]) => String(tenant), maxSize: 100, maxWait: '10m' },
}).step('take');

beforeAll(async () => {
  t = await connectTest('flow-cli');
  await t.startWorker(steps);
  client = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  for (const key of ['acme', 'globex']) {
    await t.client.workflow
      .getHandle(flowControlWorkflowId(name, key))
      .terminate('test over')
      .catch(() => undefined);
  }
  await t?.close();
});

describe('pending flow-controlled work', () => {
  it('tflow flows and the flow metrics show the events each key holds and when its run is due', async () => {
    for (let i = 0; i < 4; i++) await client.send(held, ['acme', i]);
    for (let i = 0; i < 3; i++) await client.send(held, ['globex', i]);
    const sentAt = Date.now();
    // Visibility lists a new workflow a moment after it starts.
    const json = await waitFor('both flow controls listed', async () => {
      const { flows } = JSON.parse(
        await tflow(['flows', '--json', '--pipeline', name]),
      ) as FlowControlListing;
      return flows.length === 2 ? flows : undefined;
    });
    expect(json.map(({ key, kind, events, started }) => ({ key, kind, events, started }))).toEqual([
      { key: 'acme', kind: 'batch', events: 4, started: 0 },
      { key: 'globex', kind: 'batch', events: 3, started: 0 },
    ]);
    for (const f of json) {
      expect(f.dueAt! - sentAt).toBeGreaterThan(9 * 60_000);
      expect(f.dueAt! - sentAt).toBeLessThanOrEqual(10 * 60_000);
    }
    const table = await tflow(['flows', '--pipeline', name], { tty: true });
    expect(table).toMatch(/PIPELINE\s+KEY\s+CONTROL\s+PENDING\s+NEXT RUN\s+RUNS STARTED/);
    expect(table).toMatch(new RegExp(`${name}\\s+acme\\s+batch\\s+4\\s+in \\d+ min`));

    const metrics = new WorkerMetrics();
    metrics.watchFlows((o) => listFlowControls(t.client, o));
    const text = await metrics.registry.metrics();
    expect(text).toContain(`tflow_flow_events_pending{pipeline="${name}",control="batch"} 7`);
    expect(text).toContain(`tflow_flow_controls{pipeline="${name}",control="batch"} 2`);
    const next = Number(
      new RegExp(`tflow_flow_next_run_seconds\\{pipeline="${name}",control="batch"\\} ([\\d.]+)`).exec(
        text,
      )?.[1],
    );
    expect(next).toBeGreaterThan(8 * 60);
    expect(next).toBeLessThanOrEqual(10 * 60);
  });
});
