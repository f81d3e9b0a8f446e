import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { toPipelineSpec } from '../../src/pipeline/builder';
import { runStartOptions } from '../../src/client/runs/run-start';
import { MONTH_NAMES } from '../../src/schedule/cron-fields';
import { PIPELINE_WORKFLOW_TYPE, type PipelineRunResult } from '../../src/workflows/run-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * The run guard of the DST policy on a real worker, through a real schedule: a clock change cannot be
 * made due on demand, so the schedule fires at two UTC instants a few seconds ahead and its runs carry a
 * `dstSkips` list naming the first, as a job's runs carry the nominal times of Temporal's fires that its
 * policy does not run (src/schedule/dst-compile.ts). The first run skips itself with reason `dst`
 * (result and TflowOutcome `skipped:dst`), the second runs its step.
 */

let t: TestContext;
let ran = 0;
const steps = {
  async work(): Promise<string> {
    ran++;
    return 'done';
  },
};
const workPipeline = pipeline('dst-guard', { steps }).step('work');

beforeAll(async () => {
  t = await connectTest('dst-guard');
  await t.startWorker(steps);
});
afterAll(async () => t?.close());

const at = (d: Date) => ({
  year: d.getUTCFullYear(),
  month: MONTH_NAMES[d.getUTCMonth()]!,
  dayOfMonth: d.getUTCDate(),
  hour: d.getUTCHours(),
  minute: d.getUTCMinutes(),
  second: d.getUTCSeconds(),
});

describe('DST run guard', () => {
  it('skips a scheduled run whose nominal time is in dstSkips, with reason dst, and runs the others', async () => {
    const base = Math.ceil(Date.now() / 1000) * 1000;
    const [first, second] = [new Date(base + 5_000), new Date(base + 8_000)];
    const jobId = t.uid('dst-guard');
    const handle = await t.client.schedule.create({
      scheduleId: jobId,
      spec: { calendars: [at(first), at(second)], timezone: 'UTC' },
      action: {
        type: 'startWorkflow',
        workflowType: PIPELINE_WORKFLOW_TYPE,
        workflowId: jobId,
        taskQueue: t.taskQueue,
        ...runStartOptions(toPipelineSpec(workPipeline), [], {
          job: { jobId, dstSkips: [first.toISOString().replace('.000Z', 'Z')] },
        }),
      },
    });
    try {
      const ids = await waitFor(
        'both runs to start',
        async () => {
          const d = await handle.describe();
          const wf = d.info.recentActions.map((a) => a.action.workflow.workflowId);
          return wf.length >= 2 ? wf : undefined;
        },
        30_000,
      );
      const results = await Promise.all(
        ids.map((id) => t.client.workflow.getHandle(id).result() as Promise<PipelineRunResult>),
      );
      expect(results[0]).toMatchObject({ status: 'skipped', skipReason: 'dst', steps: [] });
      expect(results[1]).toMatchObject({ status: 'completed' });
      expect(ran).toBe(1);
      const outcome = await waitFor('the outcome in visibility', async () => {
        const desc = await t.client.workflow.getHandle(ids[0]!).describe();
        const v = desc.searchAttributes.TflowOutcome as string[] | undefined;
        return v?.[0];
      });
      expect(outcome).toBe('skipped:dst');
    } finally {
      await handle.delete();
    }
  }, 60_000);
});
