import type { ScheduleSpec } from '@temporalio/client';
import { msToTs, tsToMs } from '@temporalio/common/lib/time';
import { compileTrigger } from '../../src/schedule/compile-trigger';
import { dstScheduleSpec } from '../../src/schedule/dst-compile';
import type { Trigger } from '../../src/schedule/trigger-types';
import { PIPELINE_WORKFLOW_TYPE } from '../../src/workflows/run-types';
import type { TestContext } from './temporal';

/**
 * The times the server fires a trigger in `(from, to]`: a paused schedule is created from the compiled
 * trigger (with `jitterMs`, the spec's jitter), asked for ListScheduleMatchingTimes (at most 1,000 times,
 * jittered as the runs will start), and deleted. A trigger with a DST policy (its own, or the default that
 * corrects a weekday the server misreads, see weekday-misread.ts) is written as the scheduler writes it,
 * with the policy's entries (for a horizon from a day before `from`), and the fires its run guard skips
 * are left out: what runs.
 */
export async function serverTimes(
  t: TestContext,
  trigger: Trigger,
  from: string,
  to: string,
  jitterMs?: number,
): Promise<string[]> {
  const compiled = compileTrigger(trigger, 'UTC');
  const written = dstScheduleSpec(compiled, new Date(Date.parse(from) - 86_400_000));
  const skips = new Set(written.dst?.skips ?? []);
  const scheduleId = t.uid('preview');
  const handle = await t.client.schedule.create({
    scheduleId,
    spec: { ...written.spec, ...(jitterMs !== undefined ? { jitter: jitterMs } : {}) },
    action: { type: 'startWorkflow', workflowType: PIPELINE_WORKFLOW_TYPE, taskQueue: t.taskQueue, args: [] },
    state: { paused: true },
  });
  try {
    const res = await t.connection.workflowService.listScheduleMatchingTimes({
      namespace: t.namespace,
      scheduleId,
      startTime: msToTs(Date.parse(from)),
      endTime: msToTs(Date.parse(to)),
    });
    return (res.startTime ?? [])
      .map((ts) => new Date(tsToMs(ts)).toISOString().replace('.000Z', 'Z'))
      .filter((utc) => !skips.has(utc));
  } finally {
    await handle.delete();
  }
}

/**
 * The times the server fires a schedule spec in each window `(from, to]`: one paused schedule, one
 * ListScheduleMatchingTimes per window (at most 1,000 times each), then deleted.
 */
export async function serverTimesOfSpec(
  t: TestContext,
  spec: ScheduleSpec,
  windows: readonly { from: string; to: string }[],
): Promise<string[][]> {
  const scheduleId = t.uid('preview-spec');
  const handle = await t.client.schedule.create({
    scheduleId,
    spec,
    action: { type: 'startWorkflow', workflowType: PIPELINE_WORKFLOW_TYPE, taskQueue: t.taskQueue, args: [] },
    state: { paused: true },
  });
  try {
    const out: string[][] = [];
    for (const { from, to } of windows) {
      const res = await t.connection.workflowService.listScheduleMatchingTimes({
        namespace: t.namespace,
        scheduleId,
        startTime: msToTs(Date.parse(from)),
        endTime: msToTs(Date.parse(to)),
      });
      out.push((res.startTime ?? []).map((ts) => new Date(tsToMs(ts)).toISOString().replace('.000Z', 'Z')));
    }
    return out;
  } finally {
    await handle.delete();
  }
}
