import type { Duration } from '@temporalio/common';
import { compileJobDefaults } from '../../client/jobs/job-compile';
import type {
  CronJobOptions,
  IntervalJobOptions,
  ModifyJobOptions,
  OneOffJobOptions,
} from '../../client/jobs/store/job-options';
import { InvalidArgumentError } from '../../errors';
import { parseDuration } from '../../parse/duration';
import { parseInstant } from '../../parse/instant';
import { backfillOverlap } from '../../schedule/policies';
import type { PipelineLike } from '../../pipeline/builder';
import type {
  CronTrigger,
  CalendarTrigger,
  IntervalTrigger,
  OneOffTrigger,
  Trigger,
} from '../../schedule/trigger-types';
import { testSteps } from '../pipeline-test-env';
import { NotInVirtualTimeError } from '../errors';
import { EnvState } from './env-state';
import { prepareVirtualJob } from './job-check';
import type {
  CapturedAlert,
  OccurrenceRecord,
  RunRecord,
  ScheduleTestEnvOptions,
  VirtualDeadLetter,
  VirtualSpan,
} from './schedule-env-types';
import { VirtualClock } from './virtual-clock';
import { VirtualSchedule } from './virtual-schedule';

/*
 * createScheduleTestEnv: the user's jobs and real steps on a simulated Temporal server in virtual time.
 * The jobs go through the scheduler's own validation stop; their times come from the project's one model
 * (serverFires); the server's schedule rules are virtual-schedule.ts; a run's guards virtual-run.ts; its
 * pipeline spec-runner.ts.
 */

/** A schedule test environment: see {@link createScheduleTestEnv}. */
export interface ScheduleTestEnv {
  /** Virtual now. */
  now(): Date;
  /** `PipelineScheduler.schedule()`: a cron or calendar job; returns its id. */
  schedule(p: PipelineLike, opts: CronJobOptions): Promise<string>;
  /** `PipelineScheduler.scheduleInterval()`. */
  scheduleInterval(p: PipelineLike, opts: IntervalJobOptions): Promise<string>;
  /** `PipelineScheduler.scheduleAt()`: a one-off. */
  scheduleAt(p: PipelineLike, opts: OneOffJobOptions): Promise<string>;
  /** Moves virtual time on by `duration`, running everything due. */
  advance(duration: Duration): Promise<void>;
  /** Moves virtual time on to `instant`. */
  advanceTo(instant: Date | string): Promise<void>;
  /** No worker polls the jobs' task queue in this span (a deploy, a crash): tasks wait, attempts in flight are lost. */
  workersDown(span: VirtualSpan): void;
  /** The Temporal server is down in this span: nothing fires or runs; the schedules catch up when it is back. */
  serverDown(span: VirtualSpan): void;
  /** `PipelineScheduler.pauseJob()`: nothing more starts by the spec; the buffer is dropped (the note is not kept). */
  pauseJob(jobId: string, note?: string): Promise<void>;
  /** `PipelineScheduler.resumeJob()`: the fires of the pause are not made up. */
  resumeJob(jobId: string, note?: string): Promise<void>;
  /** Runs the job now, with its own overlap policy. */
  triggerJob(jobId: string): Promise<void>;
  /**
   * `PipelineScheduler.backfillJob()`: every fire of the job in `[from, to]` (past instants), one run at a
   * time (all at once when the job allows overlap, maxInstances > 1).
   */
  backfillJob(jobId: string, window: { from: Date | string; to: Date | string }): Promise<void>;
  /** Future runs cancelled; a run in flight continues. */
  removeJob(jobId: string): Promise<void>;
  /**
   * Not in virtual time: rejects with {@link NotInVirtualTimeError} (`feature` `modifyJob`), changing
   * nothing. An edit is not simulated: create the edited job in a new environment started at the edit's
   * instant, or test the edit with `PipelineScheduler` on a dev server.
   */
  modifyJob(jobId: string, changes: ModifyJobOptions): Promise<never>;
  /** Not in virtual time: rejects with {@link NotInVirtualTimeError}, as {@link ScheduleTestEnv.modifyJob}. */
  rescheduleJob(jobId: string, trigger: Trigger): Promise<never>;
  /** Every nominal time so far with its outcome, oldest first (all jobs, or one). */
  occurrences(jobId?: string): OccurrenceRecord[];
  /** Every run the server started, with its steps, attempts and compensations. */
  runs(jobId?: string): RunRecord[];
  /** Alerts raised (captured, never sent). */
  alerts(jobId?: string): CapturedAlert[];
  /** Dead letters of failed runs. */
  deadLetters(jobId?: string): VirtualDeadLetter[];
}

/** A pseudo-random number in [0, 1) from a seed and a nominal time (the same on every call). */
function seededFraction(seed: number, nominal: number): number {
  let h = (seed ^ Math.floor(nominal / 1000)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b) >>> 0;
  return ((h ^ (h >>> 16)) >>> 0) / 2 ** 32;
}

/**
 * A schedule test environment: your jobs (the options `PipelineScheduler` takes) and your real steps, on a
 * simulated Temporal server in virtual time. A year of an hourly job takes seconds.
 *
 * ```ts
 * const env = createScheduleTestEnv({ start: '2027-03-27T00:00:00Z', steps, timezone: 'Europe/Paris' });
 * await env.schedule(etl, { cron: '30 2 * * *', jobId: 'etl', misfireGraceTime: '10m' });
 * env.workersDown({ from: '2027-03-28T00:00:00Z', to: '2027-03-28T06:00:00Z' });
 * await env.advance('3d');
 * env.occurrences('etl'); // each nominal time: ran, skipped (and why), buffered
 * ```
 *
 * @throws the scheduler's own errors for a bad job; NotInVirtualTimeError for what needs a real server.
 */
export function createScheduleTestEnv(opts: ScheduleTestEnvOptions): ScheduleTestEnv {
  const start = parseInstant(opts.start, 'start').getTime();
  const steps = testSteps({
    steps: opts.steps,
    ...(opts.replace ? { replace: opts.replace } : {}),
    ...(opts.wrap ? { wrap: opts.wrap } : {}),
  });
  const clock = new VirtualClock(start);
  const env = new EnvState(clock, steps, opts.durations ?? {});
  const defaults = compileJobDefaults({
    taskQueue: 'virtual',
    steps,
    ...(opts.timezone !== undefined ? { timezone: opts.timezone } : {}),
    ...(opts.dst !== undefined ? { dst: opts.dst } : {}),
    ...(opts.onError !== undefined ? { onError: opts.onError } : {}),
  });
  const jitterAt = opts.jitter ?? 'seeded';
  const seed = opts.seed ?? 1;
  const jitter = (nominal: number, until: number | undefined) => {
    if (until === undefined || until <= nominal) return nominal;
    const f = jitterAt === 'seeded' ? seededFraction(seed, nominal) : jitterAt;
    return nominal + Math.floor(f * (until - nominal));
  };
  const jobs = new Map<string, VirtualSchedule>();
  const job = (id: string) => {
    const s = jobs.get(id);
    if (!s)
      throw new InvalidArgumentError(
        'jobId',
        `no job "${id}" in this environment (jobs: ${[...jobs.keys()].join(', ') || 'none'})`,
      );
    return s;
  };
  const serverCall = (what: string) => {
    const down = env.serverDownAt(clock.now());
    if (down) {
      throw new NotInVirtualTimeError(
        `${what} at ${new Date(clock.now()).toISOString()} (the server is down until ${new Date(down.to).toISOString()})`,
        'a client call fails while the server is down; advance past the downtime first',
      );
    }
  };
  const add = async (p: PipelineLike, o: CronJobOptions | IntervalJobOptions | OneOffJobOptions) => {
    serverCall('creating a job');
    const prepared = prepareVirtualJob(p, o, defaults, steps, new Date(clock.now()));
    if (jobs.has(prepared.jobId) && !jobs.get(prepared.jobId)!.removed) {
      throw new InvalidArgumentError('jobId', `a job "${prepared.jobId}" already exists in this environment`);
    }
    const s = new VirtualSchedule(env, prepared, jitter);
    jobs.set(prepared.jobId, s);
    await clock.runUntil(clock.now());
    return prepared.jobId;
  };
  const advanceTo = async (to: number) => {
    if (to < clock.now()) {
      throw new NotInVirtualTimeError(
        `advancing to ${new Date(to).toISOString()}, before now (${new Date(clock.now()).toISOString()})`,
        'virtual time only moves forward: create a new environment to start earlier',
      );
    }
    // In steps of at most a day, so that fires are read as time reaches them.
    for (let t = clock.now(); t < to || t === clock.now();) {
      const next = Math.min(to, t + 86_400_000);
      for (const s of jobs.values()) s.plan(next);
      for (const span of env.serverDown) {
        if (span.to > t && span.to <= next) clock.at(span.to, () => jobs.forEach((s) => s.wake()));
      }
      await clock.runUntil(next);
      if (env.crashed !== undefined) throw env.crashed;
      if (next === to) break;
      t = next;
    }
  };
  const verb = async (id: string, what: string, fn: (s: VirtualSchedule) => void) => {
    serverCall(what);
    fn(job(id));
    await clock.runUntil(clock.now());
    if (env.crashed !== undefined) throw env.crashed;
  };
  // An edit changes what the server holds for a job with runs open and starts buffered (the action's args,
  // policies that buffered starts resolve when they start, the spec from the edit's instant, the alert
  // clocks): not modelled, so refused by name rather than half-simulated.
  const edit = (verbName: 'modifyJob' | 'rescheduleJob', id: string): Promise<never> => {
    const what = verbName === 'modifyJob' ? 'its args, policies, onError or alerts' : 'its trigger';
    return Promise.reject(
      new NotInVirtualTimeError(
        `${verbName}("${id}") (an edit of ${what})`,
        'an edit is not simulated: schedule the edited job in a new environment started at the instant of the edit (runs open or buffered at that instant are not carried over), or test the edit with PipelineScheduler on a dev server (tflow dev)',
      ),
    );
  };
  const span = (s: VirtualSpan, field: string) => ({
    from: parseInstant(s.from, `${field}.from`).getTime(),
    to: parseInstant(s.to, `${field}.to`).getTime(),
  });
  const of = <T extends { jobId: string }>(list: T[], id?: string) =>
    id === undefined ? [...list] : list.filter((x) => x.jobId === id);
  return {
    now: () => new Date(clock.now()),
    schedule: (p, o: CronJobOptions & (CronTrigger | CalendarTrigger)) => add(p, o),
    scheduleInterval: (p, o: IntervalJobOptions & IntervalTrigger) => add(p, o),
    scheduleAt: (p, o: OneOffJobOptions & OneOffTrigger) => add(p, o),
    advance: (d) => advanceTo(clock.now() + parseDuration(d, 'duration', { allowZero: true })),
    advanceTo: (instant) => advanceTo(parseInstant(instant, 'instant').getTime()),
    workersDown: (s) => env.addDown('workers', span(s, 'workersDown'), 'workersDown'),
    serverDown: (s) => env.addDown('server', span(s, 'serverDown'), 'serverDown'),
    pauseJob: (id) => verb(id, 'pauseJob', (s) => s.pause()),
    resumeJob: (id) => verb(id, 'resumeJob', (s) => s.resume()),
    triggerJob: (id) => verb(id, 'triggerJob', (s) => s.trigger()),
    backfillJob: (id, w) =>
      verb(id, 'backfillJob', (s) => {
        const [from, to] = [parseInstant(w.from, 'from').getTime(), parseInstant(w.to, 'to').getTime()];
        if (to < from) throw new InvalidArgumentError('to', '"to" must not be before "from"');
        if (to > clock.now()) {
          throw new NotInVirtualTimeError(
            `a backfill up to ${new Date(to).toISOString()}, after now`,
            'backfill a past window; future fires run by themselves as time advances',
          );
        }
        s.backfill(from, to, backfillOverlap(s.job.policies.overlap));
      }),
    removeJob: (id) => verb(id, 'removeJob', (s) => s.remove()),
    modifyJob: (id) => edit('modifyJob', id),
    rescheduleJob: (id) => edit('rescheduleJob', id),
    occurrences: (id) => of(env.occurrences, id),
    runs: (id) => of(env.runs, id),
    alerts: (id) => (id === undefined ? [...env.alerts] : env.alerts.filter((a) => a.event.jobId === id)),
    deadLetters: (id) => of(env.deadLetters, id),
  };
}
