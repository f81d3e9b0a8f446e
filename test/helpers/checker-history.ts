/*
 * Hand-made checker histories for the invariant unit tests (test/unit/checker-*.test.ts): a job, its
 * calls and its runs written as plain data, the way the runner (test/checker/runner.ts) records them, with
 * no server. Times are ms after T0; a run's steps are logged as a real worker logs them.
 */
import type { JobRun } from '../../src/client/runs/run-types';
import type { JobSpec } from '../checker/generator';
import type { Call, DirectRun, History, JobLife } from '../checker/history';
import type { ModelTrigger } from '../checker/nominal-times';
import type { StepRecord } from '../checker/pipelines';

/** A whole minute, so that every interval of the checker's jobs has a nominal time on it. */
export const T0 = Date.parse('2026-12-04T10:00:00.000Z');
export const at = (ms: number) => T0 + ms;

export const call = (t0: number, t1: number, ok = true): Call => ({ t0: at(t0), t1: at(t1), ok });

export function emptyHistory(): History {
  return {
    seed: 1,
    durationMs: 60_000,
    plan: [],
    calls: [],
    jobs: [],
    direct: [],
    faults: [],
    steps: [],
    killedAt: new Map(),
    alerts: [],
    letters: [],
    stillRunning: [],
    restAt: at(62_000),
    endAt: at(70_000),
    createsLeftOut: 0,
    slowCalls: [],
    unread: [],
  };
}

export interface JobOptions {
  spec?: Partial<JobSpec>;
  /** When the checker's final pause was sent (ms after T0); null: the job was removed by an operation. */
  finalPauseAt?: number | null;
  counters?: Partial<NonNullable<JobLife['counters']>>;
  /** A one-off's time (ms after T0). */
  runAt?: number;
}

let serial = 0;

/** A job created at T0 (+100..300 ms, its schedule live from +400 ms), paused at rest, no runs yet. */
export function addJob(h: History, opts: JobOptions = {}): JobLife {
  const spec: JobSpec = {
    trigger: { kind: 'interval', everyS: 2 },
    maxInstances: 1,
    coalesce: true,
    ms: 200,
    onMissed: false,
    onLate: false,
    ...opts.spec,
  };
  const create = call(100, 300);
  const job: JobLife = {
    id: `ck-unit-${++serial}`,
    spec,
    trigger: { every: '2s' },
    model:
      spec.trigger.kind === 'once'
        ? { kind: 'once', at: at(opts.runAt ?? 5_000) }
        : (spec.trigger as ModelTrigger),
    reschedules: [],
    edits: [{ ...create, graceMs: spec.graceS ? spec.graceS * 1_000 : null, workMs: spec.ms }],
    create,
    createdAt: at(400),
    states: [],
    triggers: [],
    backfills: [],
    runs: [],
  };
  h.calls.push({ op: 'create', call: create });
  const pauseAt = opts.finalPauseAt === undefined ? 60_000 : opts.finalPauseAt;
  if (pauseAt !== null) {
    job.finalPause = call(pauseAt, pauseAt + 200);
    job.finalRemove = call(pauseAt + 3_000, pauseAt + 3_200);
    job.counters = {
      skippedOverlap: 0,
      missedCatchupWindow: 0,
      buffered: 0,
      bufferDropped: 0,
      ...opts.counters,
    };
  }
  h.jobs.push(job);
  return job;
}

export interface RunOptions {
  /** When the workflow started, ms after its nominal time (default 50). */
  startAfter?: number;
  /** How long the run lasts, from its start to its close (default 500; null: still running). */
  lasts?: number | null;
  status?: JobRun['status'];
  skipReason?: JobRun['skipReason'];
  /** The ms its first step logs (default the job's). */
  workMs?: number;
}

/** A run of `job` for nominal time `t` (ms after T0): the workflow, and its two steps in the log. */
export function addRun(h: History, job: JobLife, t: number, opts: RunOptions = {}): JobRun {
  const nominal = at(t);
  const start = nominal + (opts.startAfter ?? 50);
  const lasts = opts.lasts === undefined ? 500 : opts.lasts;
  const run: JobRun = {
    workflowId: `${job.id}-${new Date(nominal).toISOString().slice(0, 19)}Z`,
    runId: `run-${job.runs.length + 1}`,
    jobId: job.id,
    status: opts.status ?? (lasts === null ? 'running' : 'completed'),
    scheduledAt: new Date(nominal),
    startedAt: new Date(start),
    ...(lasts === null ? {} : { closedAt: new Date(start + lasts) }),
    ...(opts.skipReason ? { skipReason: opts.skipReason } : {}),
  };
  job.runs.push(run);
  if (run.status !== 'skipped') {
    const end = lasts === null ? start + 1_000 : start + lasts - 10;
    const mid = Math.round((start + end) / 2);
    h.steps.push(
      step(run.workflowId, run.runId, 'a', 'start', start + 10, opts.workMs ?? job.spec.ms),
      step(run.workflowId, run.runId, 'a', 'end', mid - 5),
      step(run.workflowId, run.runId, 'b', 'start', mid, opts.workMs ?? job.spec.ms),
    );
    if (lasts !== null) h.steps.push(step(run.workflowId, run.runId, 'b', 'end', end));
  }
  return run;
}

export function step(
  wf: string,
  run: string,
  name: string,
  ev: StepRecord['ev'],
  atMs: number,
  ms?: number,
): StepRecord {
  return { ev, wf, run, step: name, attempt: 1, pid: 4242, at: atMs, ...(ms === undefined ? {} : { ms }) };
}

/** The job's nominal times (ms after T0) from `from` to `to` inclusive, every `everyS` seconds. */
export function every(everyS: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = from; t <= to; t += everyS * 1_000) out.push(t);
  return out;
}

/** A run for each of the job's times that its final pause leaves certain (2 s into the run to 2 s before it). */
export function fillRuns(h: History, job: JobLife, opts: RunOptions = {}): number[] {
  const t = job.spec.trigger;
  if (t.kind !== 'interval' && t.kind !== 'calendar')
    throw new Error('fillRuns: interval and calendar jobs only');
  const everyS = t.kind === 'interval' ? t.everyS : t.stepS;
  const last = (job.finalPause ? job.finalPause.t0 - T0 : 60_000) - 2_000;
  const times = every(everyS, 2_000, last);
  for (const t of times) addRun(h, job, t, opts);
  return times;
}

/** A run started directly (key, parent, flaky...), with its steps in the log. */
export function addDirect(
  h: History,
  d: Partial<DirectRun> & Pick<DirectRun, 'kind' | 'workflowId'>,
): DirectRun {
  const run: DirectRun = { start: call(1_000, 1_100), status: 'COMPLETED', closedAt: at(5_000), ...d };
  h.direct.push(run);
  return run;
}
