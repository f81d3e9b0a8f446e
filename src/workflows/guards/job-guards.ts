import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  getExternalWorkflowHandle,
  isCancellation,
  log,
  patched,
  setHandler,
  proxyActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { DST_GUARD_PATCH, HORIZON_RENEWAL_PATCH, type JobGuardActivities } from './guard-defs';
import {
  releaseSlotSignal,
  semaphoreWorkflowId,
  type SemaphoreActivities,
  type SlotHolder,
} from '../semaphore/semaphore-defs';
import type {
  JobErrorEvent,
  PipelineProgress,
  PipelineRunInput,
  PipelineRunResult,
  RunJobContext,
} from '../run-types';
import { progressDetails, showWhenRead } from '../run/current-details';
import { nominalStartIso, reportRunFinished, scheduleLagMs } from '../run/run-finished';
import { judgedOccurrence } from './coalesce';
import { judgedBehindPredecessor } from './judged-at';
import { skippedOutcome, type SkipReason } from '../outcomes';
import { OUTCOME_SEARCH_ATTRIBUTE } from '../search-attributes';
import { progressQuery } from '../run/interpreter';
import { alertIfLate, alertSkipped, reportSuccess } from '../alerts/run-alerts';
import { horizonRenewalDue } from './horizon-renewal';

/*
 * The job policies a schedule alone cannot make exact, enforced by the scheduled run itself:
 * misfireGraceTime (a run starting too late after its nominal time is skipped), maxInstances > 1 (a slot
 * of the per-job semaphore is held for the whole run), the DST policy's corrections (a fire of Temporal's
 * that the policy does not run skips itself, reason `dst`), the one-off clean-up, the durable onError hook
 * and the run's own alerts (onMissed, onLate, the report to the job's watchdog: see run-alerts.ts), and the
 * renewal of the job's horizon when it nears its end (horizon-renewal.ts).
 * Runs started outside a schedule (no `input.job`) go straight to the interpreter, so their histories
 * are unchanged.
 */

const { tflowFinishOneOff } = proxyActivities<JobGuardActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 10, initialInterval: '200ms', maximumInterval: '5s' },
});
/**
 * The ask of the job's semaphore (`maxInstances > 1`), retried until answered, as a concurrency key's: with
 * 10 attempts, a run failed when the semaphore could not answer for a few minutes (the checker's I4: runs
 * of maxInstances-2 jobs failed before their first step while workers were down and the server was being
 * killed). Retry options are not compared on replay.
 */
const { tflowAcquireSlot } = proxyActivities<SemaphoreActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', maximumInterval: '5s' },
});

// Few attempts: a renewal that fails is asked for again by the job's next run, long before the horizon ends.
const { tflowRenewHorizon } = proxyActivities<JobGuardActivities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 3, initialInterval: '1s', maximumInterval: '5s' },
});

/**
 * Starts the renewal of the job's horizon when it ends within a year (horizon-renewal.ts), without waiting
 * for it: the run's steps go on, and the finally of runWithJobGuards awaits it (so it is part of the run's
 * history, never abandoned). Its failure is logged, never the run's.
 */
function startRenewal(job: RunJobContext): Promise<void> | undefined {
  // Only runs that carry a horizon reach the patch: histories recorded before it never do.
  if (!job.horizonEnd || !patched(HORIZON_RENEWAL_PATCH)) return undefined;
  if (!horizonRenewalDue(job.horizonEnd, Date.now())) return undefined;
  return CancellationScope.nonCancellable(async () => {
    try {
      const end = await tflowRenewHorizon(job.jobId);
      log.info('job horizon renewed', { jobId: job.jobId, horizonEnd: end ?? 'unchanged' });
    } catch (err) {
      log.warn('could not renew the job horizon', { jobId: job.jobId, error: String(err) });
    }
  });
}

function skipped(
  input: PipelineRunInput,
  job: RunJobContext,
  reason: SkipReason,
  lagMs: number | undefined,
  standsFor: string | undefined,
): PipelineRunResult {
  const progress: PipelineProgress = {
    pipeline: input.spec.name,
    status: 'skipped',
    currentStep: null,
    completed: [],
  };
  setHandler(progressQuery, () => progress);
  showWhenRead(() => progressDetails(progress, reason));
  upsertSearchAttributes([{ key: OUTCOME_SEARCH_ATTRIBUTE, value: skippedOutcome(reason) }]);
  log.info('scheduled run skipped', { jobId: job.jobId, reason });
  reportRunFinished(input, { status: 'skipped', skipReason: reason, durationMs: 0, lagMs });
  return { status: 'skipped', skipReason: reason, ...(standsFor ? { standsFor } : {}), steps: [] };
}

function errorEvent(input: PipelineRunInput, job: RunJobContext, err: unknown): JobErrorEvent {
  const info = workflowInfo();
  const failure = err instanceof ActivityFailure && err.cause ? err.cause : err;
  return {
    jobId: job.jobId,
    pipeline: input.spec.name,
    workflowId: info.workflowId,
    runId: info.runId,
    message: failure instanceof Error ? failure.message : String(failure),
    ...(failure instanceof ApplicationFailure && failure.type ? { type: failure.type } : {}),
    ...(failure instanceof ApplicationFailure && failure.details?.length
      ? { details: failure.details[0] }
      : {}),
  };
}

/** Runs the job's onError activity; its own failure is logged, never allowed to hide the run's. */
async function runOnError(name: string, event: JobErrorEvent): Promise<void> {
  const hooks = proxyActivities<Record<string, (e: JobErrorEvent) => Promise<unknown>>>({
    startToCloseTimeout: '1m',
    retry: { maximumAttempts: 3 },
  });
  try {
    await CancellationScope.nonCancellable(() => hooks[name]!(event));
  } catch (hookErr) {
    log.error('onError hook failed', { hook: name, error: String(hookErr) });
  }
}

/**
 * Wraps the pipeline interpreter with the job guards. The interpreter is passed in, so that this file
 * and the interpreter can change independently.
 */
export function runWithJobGuards(
  input: PipelineRunInput,
  interpret: (input: PipelineRunInput, lagMs: number | undefined) => Promise<PipelineRunResult>,
): Promise<PipelineRunResult> {
  // Not an async frame for runs without a job: every promise a workflow creates costs a stack capture
  // (the SDK's promise hook for stack-trace queries), so the common path adds none.
  return input.job ? guarded(input, input.job, interpret) : interpret(input, undefined);
}

type Interpret = (input: PipelineRunInput, lagMs: number | undefined) => Promise<PipelineRunResult>;
type Judgement = { lateMs: number | undefined; standsFor?: string };

/**
 * The occurrence a run is judged by: a late run of a coalescing job by the latest occurrence it stands
 * for (coalesce.ts); a late buffered one, when its skipped predecessor was judged (judged-at.ts). A plain
 * value unless it is a lookup.
 */
function judge(job: RunJobContext, late: number | undefined): Judgement | Promise<Judgement> {
  return job.coalesce ? judgedOccurrence(job, late) : judgedBehindPredecessor(job, late);
}

function guarded(
  input: PipelineRunInput,
  job: NonNullable<PipelineRunInput['job']>,
  interpret: Interpret,
): Promise<PipelineRunResult> {
  // Until the interpreter installs its own handler (after the guards), `progress` says the run waits.
  const waiting: PipelineProgress = {
    pipeline: input.spec.name,
    status: 'running',
    currentStep: null,
    completed: [],
  };
  setHandler(progressQuery, () => waiting);
  showWhenRead(() =>
    progressDetails(waiting, `job ${job.jobId}: checking its misfire grace and instance limit`),
  );
  // Most scheduled runs have nothing to wait for before their interpreter nor to finish after it: no
  // horizon to renew, no DST policy, no instance limit, no one-off clean-up, no onError hook, no alert of
  // their own, and a judgement without a lookup that keeps them. Such a run's promise is its
  // interpreter's, without an async frame of the guards': two promises fewer per run (the frame's and its
  // await's), each a stack capture by the SDK's promise hook. The same calls in the same order as
  // guardedRun's (neither a renewal nor a DST check calls patched() without their fields): no command
  // changes, and recorded runs replay unchanged.
  if (needsGuards(job)) return guardedRun(input, job, interpret);
  const late = scheduleLagMs();
  const judging = judge(job, late);
  if (judging instanceof Promise || judging.standsFor !== undefined || misfired(job, judging.lateMs)) {
    return guardedRun(input, job, interpret, { late, judging });
  }
  return interpret(input, late);
}

/**
 * What each field of a job's run context asks of the guards: `judged`, read by the fast path's own
 * judgement (misfire grace, coalescing) or only named; `guarded`, a run with it set needs
 * {@link guardedRun} (a slot, a renewal, a DST check, a clean-up, a hook or an alert). Every field of
 * RunJobContext must have its line (`satisfies`): a field added without one does not compile, so the fast
 * path cannot pass over a guard it does not know.
 */
const FIELD_ROLES = {
  jobId: 'judged',
  misfireGraceMs: 'judged',
  coalesce: 'judged',
  maxInstances: 'guarded',
  onError: 'guarded',
  once: 'guarded',
  alerts: 'guarded',
  dstSkips: 'guarded',
  horizonEnd: 'guarded',
} as const satisfies Record<keyof RunJobContext, 'judged' | 'guarded'>;

const GUARDED_FIELDS = (Object.keys(FIELD_ROLES) as (keyof typeof FIELD_ROLES)[]).filter(
  (field) => FIELD_ROLES[field] === 'guarded',
);

/** Whether a run of `job` needs {@link guardedRun}: a `guarded` field set (maxInstances: above 1). */
export function needsGuards(job: RunJobContext): boolean {
  for (const field of GUARDED_FIELDS) {
    const value = job[field];
    if (
      field === 'maxInstances' ? (value as number | undefined) !== undefined && (value as number) > 1 : value
    )
      return true;
  }
  return false;
}

function misfired(job: RunJobContext, lateMs: number | undefined): boolean {
  return job.misfireGraceMs !== undefined && lateMs !== undefined && lateMs > job.misfireGraceMs;
}

async function guardedRun(
  input: PipelineRunInput,
  job: NonNullable<PipelineRunInput['job']>,
  interpret: Interpret,
  /** The lag and judgement {@link guarded} took already (a job without a horizon or a DST policy). */
  judged?: { late: number | undefined; judging: Judgement | Promise<Judgement> },
): Promise<PipelineRunResult> {
  let slot: SlotHolder | undefined;
  let lateAlert: Promise<void> | undefined;
  let renewal: Promise<void> | undefined;
  try {
    renewal = startRenewal(job);
    const late = judged ? judged.late : scheduleLagMs();
    // Only runs of a job with a DST policy reach the patch: older histories never carry dstSkips.
    if (job.dstSkips && patched(DST_GUARD_PATCH)) {
      const nominal = nominalStartIso();
      if (nominal && job.dstSkips.includes(nominal)) return skipped(input, job, 'dst', late, undefined);
    }
    // Awaited only when it is a lookup: an await of a plain value is a promise more per run.
    const judging = judged ? judged.judging : judge(job, late);
    const { lateMs, standsFor } = judging instanceof Promise ? await judging : judging;
    if (misfired(job, lateMs)) {
      await alertSkipped(job, 'misfire', standsFor);
      return skipped(input, job, 'misfire', late, standsFor);
    }
    if (job.maxInstances !== undefined && job.maxInstances > 1) {
      const info = workflowInfo();
      const me = { workflowId: info.workflowId, runId: info.runId };
      if (!(await tflowAcquireSlot({ jobId: job.jobId, max: job.maxInstances, ...me }))) {
        await alertSkipped(job, 'max-instances', standsFor);
        return skipped(input, job, 'max-instances', late, standsFor);
      }
      slot = me;
    }
    lateAlert = alertIfLate(job, standsFor);
    try {
      const result = await interpret(input, late);
      // reportSuccess does nothing without a watchdog: not called (nor awaited) then.
      if (result.status === 'completed' && job.alerts?.watchdog) await reportSuccess(job);
      return standsFor ? { ...result, standsFor } : result;
    } catch (err) {
      // A cancelled run did not fail: the interpreter may wrap the cancellation, so ask the scope too.
      const cancelled = isCancellation(err) || CancellationScope.current().consideredCancelled;
      if (job.onError && !cancelled) await runOnError(job.onError, errorEvent(input, job, err));
      throw err;
    }
  } finally {
    // A scope (and its awaits) only when there is something to finish: most runs have nothing, and a
    // scope's promises would be stack captures for nothing (no command either way: replay-safe).
    if (lateAlert || renewal || slot || job.once) await finishGuards(job, lateAlert, renewal, slot);
  }
}

/** What a guarded run finishes, whatever happened to it: its alert and renewal, its slot, a one-off's end. */
async function finishGuards(
  job: RunJobContext,
  lateAlert: Promise<void> | undefined,
  renewal: Promise<void> | undefined,
  slot: SlotHolder | undefined,
): Promise<void> {
  await CancellationScope.nonCancellable(async () => {
    await lateAlert;
    await renewal;
    if (slot) {
      try {
        await getExternalWorkflowHandle(semaphoreWorkflowId(job.jobId)).signal(releaseSlotSignal, slot);
      } catch (err) {
        // The semaphore is gone (completed or terminated): nothing holds the slot any more.
        log.warn('could not release the job slot', { jobId: job.jobId, error: String(err) });
      }
    }
    if (job.once) await tflowFinishOneOff(job.jobId);
  });
}
