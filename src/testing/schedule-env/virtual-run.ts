import type { JobAlertEvent } from '../../workflows/alert-types';
import type { JobErrorEvent } from '../../workflows/run-types';
import { AttemptsFailed, callActivity } from './activity-attempts';
import type { EnvState } from './env-state';
import type { VirtualJob } from './job-check';
import { RunControl } from './run-control';
import type { OccurrenceRecord, RunRecord } from './schedule-env-types';
import { runSpec } from './spec-runner';
import { RunCancelled } from './virtual-clock';

/*
 * One scheduled run in virtual time, through the job guards as src/workflows/guards/job-guards.ts applies
 * them at its first workflow task: a fire its DST policy does not run skips itself (`dst`); a coalescing
 * job's run later than its grace stands for the latest fire due by then (coalesce.ts); a run later than
 * misfireGraceTime skips itself (`misfire`, alert onMissed); with maxInstances > 1 a run that finds N
 * runs holding a slot skips itself (`max-instances`, alert onMissed); a run whose first step starts later
 * than lateAfter raises onLate; then the pipeline (spec-runner.ts); a completed run tells the dead-man
 * switch, a failed one calls onError and files its dead letter. A buffered run is judged at its first
 * workflow task: in virtual time Temporal's own delay between buffered runs is zero, which is the case the
 * judged-at rule (judged-at.ts) reduces to.
 */

/** What a run tells its schedule and watchdog. */
export interface RunHooks {
  /** The run closed (any status). */
  closed(run: RunRecord): void;
  /** The run completed: the dead-man switch is satisfied. */
  succeeded(at: number): void;
  /** Slots of the job's semaphore held now (maxInstances > 1). */
  slots: { held: number };
  /**
   * The occurrence a late run of a coalescing job stands for, as the server answers the guard's lookup
   * (latest-occurrence.ts), or undefined for its own nominal time.
   */
  latestFire(after: number, until: number, workflowId: string): number | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const isoMs = (ms: number) => new Date(ms).toISOString();

/** Starts a run now; returns its control (for CANCEL_OTHER / TERMINATE_OTHER). */
export function startRun(
  env: EnvState,
  job: VirtualJob,
  occurrence: OccurrenceRecord,
  dstSkip: boolean,
  hooks: RunHooks,
): { control: RunControl; run: RunRecord } {
  const clock = env.clock;
  const nominal = Date.parse(occurrence.nominal);
  const workflowId = `${job.workflowId}-${iso(Math.floor(nominal / 1000) * 1000)}`;
  const control = new RunControl(clock, env);
  const run: RunRecord = {
    jobId: job.jobId,
    workflowId,
    nominal: occurrence.nominal,
    source: occurrence.source,
    startedAt: isoMs(clock.now()),
    status: 'running',
    steps: [],
    compensations: [],
  };
  env.runs.push(run);
  Object.assign(occurrence, { outcome: 'running', workflowId });
  const ctx = job.context;
  const event = (
    kind: JobAlertEvent['kind'],
    text: string,
    extra: Partial<JobAlertEvent>,
  ): JobAlertEvent => ({
    kind,
    jobId: job.jobId,
    text,
    at: isoMs(clock.now()),
    workflowId,
    runId: `${workflowId}-run`,
    ...extra,
  });
  const skip = (reason: NonNullable<RunRecord['skipReason']>, standsFor?: string) => {
    Object.assign(run, { status: 'skipped', skipReason: reason, ...(standsFor ? { standsFor } : {}) });
    Object.assign(occurrence, { outcome: 'skipped', reason, ...(standsFor ? { standsFor } : {}) });
    if (reason === 'dst' || !job.alerts.onMissed) return;
    const missed = standsFor ?? occurrence.nominal;
    const why = reason === 'misfire' ? 'started past its misfire grace' : 'maxInstances runs were running';
    env.alert(
      'onMissed',
      event('missed', `job "${job.jobId}" missed its run of ${missed}: ${why}`, {
        reason,
        nominalTimes: [missed],
      }),
    );
  };
  let slot = false;
  const body = async () => {
    await control.task();
    const now = clock.now();
    run.firstTaskAt = isoMs(now);
    if (dstSkip) return skip('dst');
    let lateMs = now - nominal;
    let standsFor: string | undefined;
    const grace = ctx.misfireGraceMs;
    if (ctx.coalesce && grace !== undefined && lateMs > grace && lateMs >= 1000) {
      const latest = hooks.latestFire(nominal, now, workflowId);
      if (latest !== undefined) [lateMs, standsFor] = [now - latest, isoMs(latest)];
    }
    run.lateMs = lateMs;
    if (standsFor) Object.assign(run, { standsFor });
    if (grace !== undefined && lateMs > grace) return skip('misfire', standsFor);
    if (ctx.maxInstances !== undefined && ctx.maxInstances > 1) {
      if (hooks.slots.held >= ctx.maxInstances) return skip('max-instances', standsFor);
      hooks.slots.held++;
      slot = true;
    }
    Object.assign(occurrence, { outcome: 'ran', ...(standsFor ? { standsFor } : {}) });
    const lateAfter = ctx.alerts?.lateAfterMs;
    const from = standsFor ? Date.parse(standsFor) : nominal;
    if (ctx.alerts?.onLate && lateAfter !== undefined && now - from > lateAfter) {
      const late = now - from;
      const at = isoMs(from);
      env.alert(
        'onLate',
        event(
          'late',
          `job "${job.jobId}": the run of ${at} started its first step ${late} ms late (lateAfter ${lateAfter} ms)`,
          {
            nominalTimes: [at],
            lateMs: late,
          },
        ),
      );
    }
    const callCtx = {
      control,
      steps: env.steps,
      durations: env.durations,
      workflowId,
      record: (s: RunRecord['steps'][number]) => run.steps.push(s),
    };
    const end = await runSpec(job.spec, job.args, callCtx);
    if (end.status === 'completed') {
      Object.assign(run, { status: 'completed', output: end.output });
      hooks.succeeded(clock.now());
    } else if (end.status === 'cancelled') {
      Object.assign(run, {
        status: control.ended === 'terminated' ? 'terminated' : 'cancelled',
        compensations: end.compensations,
      });
    } else {
      Object.assign(run, {
        status: 'failed',
        failure: end.details,
        compensations: end.details.compensations ?? [],
      });
      if (ctx.onError) {
        const e: JobErrorEvent = {
          jobId: job.jobId,
          pipeline: job.spec.name,
          workflowId,
          runId: `${workflowId}-run`,
          message: end.error.message,
          type: end.error.type ?? 'PipelineFailed',
          details: end.details,
        };
        const hook = { ...callCtx, control: new RunControl(clock, env), record: () => undefined };
        await callActivity(hook, { startToCloseMs: 60_000 }, ctx.onError, 'onError', [e], {
          maximumAttempts: 3,
        }).catch((err: unknown) => {
          if (!(err instanceof AttemptsFailed)) throw err;
        });
      }
      env.deadLetters.push({
        jobId: job.jobId,
        workflowId,
        failedAt: isoMs(clock.now()),
        details: end.details,
      });
    }
  };
  void body()
    .catch((err: unknown) => {
      if (!(err instanceof RunCancelled)) {
        env.crash(err);
        return;
      }
      // Ended before its first step: the run never reached its guards or steps.
      const how = control.ended === 'terminated' ? 'terminated' : 'cancelled';
      run.status = how;
      if (occurrence.outcome === 'running') Object.assign(occurrence, { outcome: 'skipped', reason: how });
    })
    .finally(() => {
      if (slot) hooks.slots.held--;
      run.closedAt = isoMs(clock.now());
      hooks.closed(run);
    });
  return { control, run };
}
