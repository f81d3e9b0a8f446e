/*
 * Outside edits: the same verbs a user can give a job's schedule with the real `temporal` CLI instead of
 * temporal-flow (toggle, trigger, backfill, delete). The model reads them as the product's own verbs: a
 * pause is a pause whoever sends it. So each passes the overlap policy temporal-flow's own verb passes
 * (the CLI's default is Skip): a trigger the schedule's own policy, as `triggerJob` does; a backfill
 * `BufferAll`, or `AllowAll` when the schedule's policy is `AllowAll` (a job with maxInstances > 1), as
 * `backfillJob` does since e6ece02 (docs/scheduling.md, "Backfill"). Under the schedule's own Skip,
 * Temporal would start the window's first time and skip the others, which come due while that run is open
 * (counted as overlap skips): the model (job-invariants.ts) now requires a run for every backfilled time.
 * The rule is written here apart from the product's `backfillOverlap`, so that a product that went back to
 * the job's own policy is still judged against it.
 */
import { execFile } from 'node:child_process';
import type { Client } from '@temporalio/client';

export interface CliTarget {
  cli: string;
  address: string;
  namespace: string;
}

/** The CLI's names of the overlap policies, by the SDK's. */
const OVERLAP: Record<string, string> = {
  SKIP: 'Skip',
  BUFFER_ONE: 'BufferOne',
  BUFFER_ALL: 'BufferAll',
  CANCEL_OTHER: 'CancelOther',
  TERMINATE_OTHER: 'TerminateOther',
  ALLOW_ALL: 'AllowAll',
};

function run(target: CliTarget, args: string[], timeoutMs: number): Promise<void> {
  const all = [...args, '--address', target.address, '--namespace', target.namespace];
  return new Promise((resolve, reject) => {
    execFile(target.cli, all, { timeout: timeoutMs }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`temporal ${args.slice(0, 2).join(' ')}: ${stderr.trim() || err.message}`));
      else resolve();
    });
  });
}

async function overlapOf(client: Client, id: string): Promise<string> {
  const d = await client.schedule.getHandle(id).describe();
  return OVERLAP[d.policies.overlap ?? 'SKIP'] ?? 'Skip';
}

/**
 * What a backfill passes, given the schedule's own policy (the CLI's name): every time of the window runs,
 * none dropped or ended by another. Temporal starts a backfill's times as manual starts, which neither a
 * pause nor the catch-up window holds back (`canTakeScheduledAction`, `processTimeRange` in
 * service/worker/scheduler/workflow.go), so under these two policies each one runs.
 */
export function backfillPolicy(scheduleOverlap: string): 'BufferAll' | 'AllowAll' {
  return scheduleOverlap === 'AllowAll' ? 'AllowAll' : 'BufferAll';
}

export type CliVerb = 'pause' | 'resume' | 'trigger' | 'remove';

export async function cliEdit(
  target: CliTarget,
  client: Client,
  verb: CliVerb,
  id: string,
  timeoutMs: number,
): Promise<void> {
  const s = ['--schedule-id', id];
  switch (verb) {
    case 'pause':
      return run(target, ['schedule', 'toggle', ...s, '--pause', '--reason', 'checker'], timeoutMs);
    case 'resume':
      return run(target, ['schedule', 'toggle', ...s, '--unpause', '--reason', 'checker'], timeoutMs);
    case 'trigger':
      return run(
        target,
        ['schedule', 'trigger', ...s, '--overlap-policy', await overlapOf(client, id)],
        timeoutMs,
      );
    case 'remove':
      return run(target, ['schedule', 'delete', ...s], timeoutMs);
  }
}

export async function cliBackfill(
  target: CliTarget,
  client: Client,
  id: string,
  from: number,
  to: number,
  timeoutMs: number,
): Promise<void> {
  const window = ['--start-time', new Date(from).toISOString(), '--end-time', new Date(to).toISOString()];
  const policy = ['--overlap-policy', backfillPolicy(await overlapOf(client, id))];
  return run(target, ['schedule', 'backfill', '--schedule-id', id, ...window, ...policy], timeoutMs);
}

/** What a `temporal schedule update` wrote besides the new spec: what the describe before it read. */
export interface CliUpdateWrote {
  paused: boolean;
  /** The args' `ms` and the misfire grace (ms, null: none) of the input it wrote back. */
  workMs: number;
  graceMs: number | null;
}

/**
 * `temporal schedule update` in the form its help gives (schedule id, workflow id, task queue, type), with
 * the new spec (an interval, or a calendar by its second field, in UTC) and what a careful user copies
 * from `temporal schedule describe` so as to change only the spec: the input, the overlap policy, the
 * catch-up window and `--paused` when it is paused. It replaces the whole schedule: the action (its memo
 * too) and the paused state; the schedule's search attributes stay. `wrote` is told what it is about to
 * write, before the CLI runs (a call that fails after may still have landed).
 */
export async function cliUpdate(
  target: CliTarget,
  client: Client,
  id: string,
  trigger: { kind: 'interval'; everyS: number } | { kind: 'calendar'; stepS: number },
  timeoutMs: number,
  wrote: (w: CliUpdateWrote) => void,
): Promise<void> {
  const d = await client.schedule.getHandle(id).describe();
  if (d.action.type !== 'startWorkflow') throw new Error(`schedule ${id} starts no workflow`);
  const args = d.action.args ?? [];
  const input = args[0] as { args?: { ms?: unknown }[]; job?: { misfireGraceMs?: unknown } } | undefined;
  const workMs = input?.args?.[0]?.ms;
  if (typeof workMs !== 'number') throw new Error(`schedule ${id}: no args' ms in its input`);
  const grace = input?.job?.misfireGraceMs;
  const paused = d.state.paused;
  const spec =
    trigger.kind === 'interval'
      ? ['--interval', `${trigger.everyS}s`]
      : ['--calendar', JSON.stringify({ second: `*/${trigger.stepS}`, minute: '*', hour: '*' })];
  const catchup = d.policies.catchupWindow;
  wrote({ paused, workMs, graceMs: typeof grace === 'number' ? grace : null });
  return run(
    target,
    [
      'schedule',
      'update',
      '--schedule-id',
      id,
      '--workflow-id',
      d.action.workflowId,
      '--task-queue',
      d.action.taskQueue,
      '--type',
      d.action.workflowType,
      ...args.flatMap((a) => ['--input', JSON.stringify(a)]),
      ...spec,
      '--overlap-policy',
      OVERLAP[d.policies.overlap ?? 'SKIP'] ?? 'Skip',
      ...(catchup ? ['--catchup-window', `${Math.round(catchup / 1000)}s`] : []),
      ...(paused ? ['--paused'] : []),
    ],
    timeoutMs,
  );
}
