import type { JobDefaults, PreparedJob } from '../../client/jobs/job-compile';
import { prepareJob } from '../../client/jobs/job-compile';
import type { JobOptions } from '../../client/jobs/store/job-options';
import type { PipelineLike } from '../../pipeline/builder';
import { activityNodesOf, type PipelineSpec } from '../../pipeline/spec';
import type { CompiledPolicies } from '../../schedule/policies';
import type { Trigger } from '../../schedule/trigger-types';
import type { Steps } from '../../worker/create-worker';
import type { RunJobContext } from '../../workflows/run-types';
import { NotInVirtualTimeError } from '../errors';

/*
 * A job as the schedule test environment runs it: prepared by the scheduler's own validation stop
 * (prepareJob: options, pipeline, trigger, policies, a due one-off, args, onError, alerts, with the
 * scheduler's defaults), so a job the scheduler refuses is refused here with the same error; then what
 * virtual time cannot do is refused by name (NotInVirtualTimeError), before anything runs.
 */

/** Temporal's catch-up window when a job sets none (the server's default). */
export const DEFAULT_CATCHUP_WINDOW_MS = 365 * 86_400_000;

/** A job ready for the simulated server. */
export interface VirtualJob {
  readonly jobId: string;
  readonly spec: PipelineSpec;
  readonly args: unknown[];
  /** What each scheduled run knows of its job (the schedule action's RunJobContext, as the scheduler wrote it). */
  readonly context: RunJobContext;
  /** The trigger as stored (with the scheduler's DST policy when it sets none). */
  readonly trigger: Trigger;
  readonly policies: CompiledPolicies;
  readonly catchupWindowMs: number;
  /** Prefix of its runs' workflow ids. */
  readonly workflowId: string;
  readonly paused: boolean;
  /** A one-off: fires once (or at once, when due now). */
  readonly once: boolean;
  readonly dueNow: boolean;
  /** The dead-man switch, when the job has one. */
  readonly expectSuccessWithinMs: number | undefined;
  /** Whether it has each alert target (alerts are captured, not sent). */
  readonly alerts: { onMissed: boolean; onLate: boolean; onSilent: boolean };
  readonly prepared: PreparedJob;
}

const refuse = (feature: string, instead: string) => new NotInVirtualTimeError(feature, instead);
const ON_SERVER =
  'test it with createPipelineTestEnv (runs on the time-skipping test server), or on a dev server';

/** Checks the spec's nodes and steps: every activity has a function here, and no node needs a server. */
function checkSpec(spec: PipelineSpec, steps: Steps): void {
  for (const node of spec.steps) {
    if (node.kind === 'waitFor') throw refuse(`waitFor step "${node.id}" (a signal)`, ON_SERVER);
    if (node.kind === 'pipeline') throw refuse(`child pipeline "${node.id}"`, ON_SERVER);
  }
  if (spec.then) throw refuse(`the chained runs of pipeline "${spec.name}" (then)`, ON_SERVER);
  for (const step of activityNodesOf(spec)) {
    if (step.rateLimitPerSecond !== undefined) {
      throw refuse(
        `rateLimit of step "${step.id}" (a task-queue rate limit of the server)`,
        `${ON_SERVER}; or schedule a copy of the pipeline without rateLimit here`,
      );
    }
  }
  const names = [
    ...activityNodesOf(spec).flatMap((s) => [s.activity, ...(s.compensate ? [s.compensate] : [])]),
    ...(spec.onFailure ? [spec.onFailure] : []),
  ];
  for (const name of names) {
    if (typeof steps[name] !== 'function') {
      throw refuse(
        `activity "${name}" of pipeline "${spec.name}" (no function for it among the steps: ${Object.keys(steps).join(', ') || 'none'})`,
        `pass a function for it in steps or replace (a step served by another worker, e.g. a Python one, needs a stand-in here)`,
      );
    }
  }
}

/** Prepares a job as `PipelineScheduler.schedule()` does, then refuses what virtual time cannot do. */
export function prepareVirtualJob(
  p: PipelineLike,
  opts: JobOptions & Trigger,
  defaults: JobDefaults,
  steps: Steps,
  now: Date,
): VirtualJob {
  const prepared = prepareJob(p, opts, defaults, now);
  const input = prepared.options.action.args[0];
  if (input.concurrency) {
    throw refuse(
      `concurrencyKey of pipeline "${prepared.pipeline.name}" (runs wait in line on a semaphore workflow)`,
      ON_SERVER,
    );
  }
  // Priority and fairness order tasks among the runs of a busy server: alone here they change nothing.
  checkSpec(prepared.pipeline, steps);
  if (input.job?.onError && typeof steps[input.job.onError] !== 'function') {
    throw refuse(
      `onError "${input.job.onError}" (no function for it among the steps)`,
      'pass a function for it in steps',
    );
  }
  const policies = prepared.job.policies;
  const alerts = prepared.alerts;
  return {
    jobId: prepared.jobId,
    spec: prepared.pipeline,
    args: input.args,
    context: input.job!,
    trigger: prepared.record.trigger,
    policies,
    catchupWindowMs: policies.catchupWindowMs ?? DEFAULT_CATCHUP_WINDOW_MS,
    workflowId: prepared.options.action.workflowId,
    paused: prepared.options.state?.paused === true,
    once: prepared.job.trigger.kind === 'once',
    dueNow: prepared.due !== undefined,
    expectSuccessWithinMs: alerts.watchdog?.expectSuccessWithinMs,
    alerts: {
      onMissed: alerts.run?.onMissed !== undefined,
      onLate: alerts.run?.onLate !== undefined,
      onSilent: alerts.watchdog?.onSilent !== undefined,
    },
    prepared,
  };
}
