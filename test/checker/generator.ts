/*
 * The checker's seeded generator: from FUZZ_SEED (test/helpers/fuzz.ts) and a duration, a plan of timed
 * operations, the same plan for the same seed and duration. fast-check draws it (fc.sample with the seed);
 * the plan is then replayed against the real servers, where timing is not the plan's to decide: two runs of
 * one seed ask the same things at the same offsets, and the invariants hold whatever the interleaving.
 */
import fc from 'fast-check';

/** The zones the cron jobs run in: DST north and south, a 30-minute change (Lord Howe), a midnight one (Santiago). */
export const CHECKER_ZONES = [
  'Europe/Paris',
  'America/New_York',
  'America/Santiago',
  'Australia/Lord_Howe',
] as const;

/**
 * A Quartz day form, resolved when the job is created to name that local day in the job's zone (the plan
 * cannot know the date): `nW` (the weekday nearest the nth), `L-n`, `DAY#n`, `DAYL` (when that day is the
 * last of its kind, else a decoy naming no day this week), or no day form.
 */
export type DayForm = 'any' | 'W' | 'L-' | '#' | 'L';

/** A job as the plan asks for it (its id is given at run time). */
export interface JobSpec {
  trigger:
    | { kind: 'interval'; everyS: number }
    | { kind: 'calendar'; stepS: number }
    | { kind: 'once'; inMs: number }
    /**
     * Every stepS seconds of the local hours `h % 3 == hours` (null: all), on a day form: given as a 7-field
     * cron, or as the same calendar fields (second, minute, hour, dayOfMonth, dayOfWeek).
     */
    | {
        kind: 'cron';
        zone: string;
        stepS: number;
        hours: 0 | 1 | 2 | null;
        day: DayForm;
        form: 'cron' | 'calendar';
      }
    /** A cron naming minutes of every hour, with a DST policy (its backfills cross the zone's last clock changes). */
    | { kind: 'dst'; zone: string; minutes: number[]; gap: 'skip' | 'shift'; overlap: 'once' | 'twice' };
  maxInstances: 1 | 2;
  coalesce: boolean;
  /** misfireGraceTime, seconds; absent: none. */
  graceS?: number;
  /** How long the job's second step works. */
  ms: number;
  onMissed: boolean;
  /** onLate with lateAfter 2 s. */
  onLate: boolean;
  /** expectSuccessWithin, seconds, with onSilent (the dead-man switch); absent: none. */
  silentS?: number;
}

/** `job` is an index into the jobs created so far (taken modulo their number when the op runs). */
export type Op =
  | { kind: 'create'; job: JobSpec }
  | { kind: 'modify'; job: number; ms: number; graceS: number | null }
  /** rescheduleJob to a new trigger (one-offs are neither rescheduled nor made). */
  | { kind: 'reschedule'; job: number; trigger: JobSpec['trigger'] }
  /** `cli`: sent with the real `temporal` CLI (an outside edit) rather than temporal-flow. */
  | { kind: 'pause' | 'resume' | 'trigger' | 'remove'; job: number; cli: boolean }
  /**
   * `temporal schedule update` of a job whose trigger is an interval or a calendar, to another of those: a
   * full replace in the help's form (schedule id, workflow id, task queue, type), with the input, overlap
   * policy, catch-up window and paused state read from `temporal schedule describe` just before.
   */
  | { kind: 'update-cli'; job: number; trigger: UpdatableTrigger }
  /**
   * Jobs as code: the run's job set (3 slots) as a file would say it, then `plan` and `apply` (with `prune`:
   * the set's jobs the file no longer lists are deleted). A slot already deployed keeps its options but
   * the trigger and the args' `ms` (`change` says which the file changes); null: the slot is not listed.
   */
  | { kind: 'deploy'; slots: (DeploySlot | null)[]; prune: boolean }
  /** `tflow doctor --repair` (runDoctor with repair): it changes no schedule, so the model takes nothing from it. */
  | { kind: 'repair' }
  | { kind: 'backfill'; job: number; spanS: number; cli: boolean }
  | { kind: 'key-burst'; key: number; n: number; ms: number }
  | { kind: 'parent'; ms: number; signalAfterMs: number }
  | { kind: 'flaky'; redriveAfterMs: number }
  /** A pause, resume or modify by a client process SIGKILLed afterMs into the verb (between its calls). */
  | {
      kind: 'client-kill';
      job: number;
      verb: 'pause' | 'resume' | 'modify';
      afterMs: number;
      ms: number;
      graceS: number | null;
    }
  | { kind: 'worker-kill'; downMs: number }
  /** SIGKILL of the watchdog worker (silent alerts and server-counted misses), restarted after downMs. */
  | { kind: 'alert-worker-kill'; downMs: number }
  | { kind: 'temporal-kill'; downMs: number }
  | { kind: 'postgres-stop'; downMs: number };

export type OpKind = Op['kind'];

/** The triggers `temporal schedule update` gives here: an interval, or a calendar by its second field. */
export type UpdatableTrigger = { kind: 'interval'; everyS: number } | { kind: 'calendar'; stepS: number };

/** A slot of the job set: the job (a one-off never: a set refuses them), and what a redeploy changes. */
export interface DeploySlot {
  job: JobSpec;
  change: 'none' | 'ms' | 'trigger' | 'both';
}

export interface TimedOp {
  /** Offset from the start of the run, ms. */
  at: number;
  op: Op;
}

const triggerArb: fc.Arbitrary<JobSpec['trigger']> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('interval' as const),
      everyS: fc.integer({ min: 2, max: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('calendar' as const),
      stepS: fc.constantFrom(3, 4, 5, 6),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('once' as const),
      inMs: fc.integer({ min: 1_500, max: 8_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('cron' as const),
      zone: fc.constantFrom(...CHECKER_ZONES),
      stepS: fc.constantFrom(3, 4, 5, 6),
      hours: fc.constantFrom(null, null, 0 as const, 1 as const, 2 as const),
      day: fc.constantFrom<DayForm>('any', 'W', 'L-', '#', 'L'),
      form: fc.constantFrom('cron' as const, 'calendar' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('dst' as const),
      zone: fc.constantFrom(...CHECKER_ZONES),
      minutes: fc.constantFrom<number[]>([0, 30], [0, 15, 30, 45], [0, 10, 20, 30, 40, 50], [5, 35], [45]),
      gap: fc.constantFrom('skip' as const, 'shift' as const),
      overlap: fc.constantFrom('once' as const, 'twice' as const),
    }),
  },
);

const jobSpec: fc.Arbitrary<JobSpec> = fc.record(
  {
    trigger: triggerArb,
    maxInstances: fc.constantFrom(1 as const, 2 as const),
    coalesce: fc.boolean(),
    graceS: fc.option(fc.constantFrom(2, 3, 5), { nil: undefined }),
    ms: fc.integer({ min: 200, max: 6_000 }),
    onMissed: fc.boolean(),
    onLate: fc.boolean(),
    silentS: fc.option(fc.constantFrom(6, 10, 20), { nil: undefined }),
  },
  { requiredKeys: ['trigger', 'maxInstances', 'coalesce', 'ms', 'onMissed', 'onLate'] },
);

const ref = fc.nat({ max: 1_000 });

const updatableArb: fc.Arbitrary<UpdatableTrigger> = fc.oneof(
  fc.record({ kind: fc.constant('interval' as const), everyS: fc.integer({ min: 2, max: 6 }) }),
  fc.record({ kind: fc.constant('calendar' as const), stepS: fc.constantFrom(3, 4, 5, 6) }),
);

/** A job of a set: any trigger of the mix but a one-off (drawn as an interval instead). */
const setJobSpec: fc.Arbitrary<JobSpec> = jobSpec.map((job) =>
  job.trigger.kind === 'once'
    ? { ...job, trigger: { kind: 'interval' as const, everyS: 2 + (job.trigger.inMs % 5) } }
    : job,
);

const deployArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constant('deploy' as const),
  slots: fc.array(
    fc.option(
      fc.record({
        job: setJobSpec,
        change: fc.constantFrom(
          'none' as const,
          'none' as const,
          'ms' as const,
          'trigger' as const,
          'both' as const,
        ),
      }),
      { nil: null, freq: 4 },
    ),
    { minLength: 3, maxLength: 3 },
  ),
  prune: fc.boolean(),
});
/** One edit in three through the `temporal` CLI. */
const viaCli = fc.constantFrom(false, false, true);

function opArb(faults: readonly OpKind[]): fc.Arbitrary<Op> {
  const ops: fc.WeightedArbitrary<Op>[] = [
    { weight: 6, arbitrary: jobSpec.map((job) => ({ kind: 'create' as const, job })) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('modify' as const),
        job: ref,
        ms: fc.integer({ min: 200, max: 5_000 }),
        graceS: fc.constantFrom(null, 2, 5),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('reschedule' as const), job: ref, trigger: triggerArb }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ kind: fc.constant('update-cli' as const), job: ref, trigger: updatableArb }),
    },
    { weight: 2, arbitrary: deployArb },
    { weight: 1, arbitrary: fc.constant({ kind: 'repair' as const }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('client-kill' as const),
        job: ref,
        verb: fc.constantFrom('pause' as const, 'resume' as const, 'modify' as const),
        afterMs: fc.integer({ min: 0, max: 400 }),
        ms: fc.integer({ min: 200, max: 5_000 }),
        graceS: fc.constantFrom(null, 2, 5),
      }),
    },
    ...(['pause', 'resume', 'trigger', 'remove'] as const).map((kind) => ({
      weight: kind === 'remove' ? 1 : 3,
      arbitrary: fc.tuple(ref, viaCli).map(([job, cli]): Op => ({ kind, job, cli })),
    })),
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('backfill' as const),
        job: ref,
        spanS: fc.integer({ min: 3, max: 10 }),
        cli: viaCli,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('parent' as const),
        ms: fc.integer({ min: 100, max: 2_000 }),
        signalAfterMs: fc.integer({ min: 0, max: 6_000 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('flaky' as const),
        redriveAfterMs: fc.integer({ min: 500, max: 6_000 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('key-burst' as const),
        key: fc.nat({ max: 2 }),
        n: fc.integer({ min: 3, max: 8 }),
        ms: fc.integer({ min: 300, max: 2_500 }),
      }),
    },
  ];
  for (const kind of faults) {
    ops.push({
      weight: 1,
      arbitrary: fc
        .integer({ min: kind === 'worker-kill' ? 500 : 1_000, max: kind === 'postgres-stop' ? 8_000 : 4_000 })
        .map((downMs) => ({ kind, downMs }) as Op),
    });
  }
  return fc.oneof(...ops);
}

export interface PlanOptions {
  seed: number;
  durationMs: number;
  /** Fault kinds the server can take, besides `worker-kill`. */
  serverFaults: readonly ('temporal-kill' | 'postgres-stop')[];
}

/**
 * The plan: about one operation every 1.6 s over the duration, the first jobs created at once, at least one
 * worker kill and one kill of each server fault (so that every run meets each fault kind), the faults at
 * least 12 s apart so that each one's recovery is seen.
 */
/**
 * A fraction of the span, uniform in [0, 1]. Not `fc.double`: it draws over the representable doubles,
 * most of which lie near 0, and biases toward the edges besides; with it 844 of the 1,022 operations of
 * a 30-minute plan (seed 20261204) fell in its first 5 seconds.
 */
const fraction = fc.noBias(fc.integer({ min: 0, max: 1_000_000 })).map((k) => k / 1_000_000);

export function makePlan(opts: PlanOptions): TimedOp[] {
  const n = Math.max(12, Math.round(opts.durationMs / 1_600));
  const faults: OpKind[] = ['worker-kill', 'alert-worker-kill', ...opts.serverFaults];
  const arb = fc.record({
    firstJobs: fc.array(jobSpec, { minLength: 3, maxLength: 5 }),
    ops: fc.array(fc.tuple(fraction, opArb(faults)), {
      minLength: n,
      maxLength: n,
    }),
    forced: fc.array(
      fraction.map((f) => (f - 0.5) / 5),
      {
        minLength: faults.length,
        maxLength: faults.length,
      },
    ),
    downMs: fc.array(fc.integer({ min: 1_000, max: 4_000 }), {
      minLength: faults.length,
      maxLength: faults.length,
    }),
  });
  const [drawn] = fc.sample(arb, { seed: opts.seed, numRuns: 1 });
  const { firstJobs, ops, forced, downMs } = drawn!;
  const plan: TimedOp[] = firstJobs.map((job, i) => ({ at: i * 100, op: { kind: 'create', job } }));
  const span = opts.durationMs - 2_000;
  // One of each fault kind, spread evenly (give or take a tenth of the span), kept whatever follows.
  const kept: number[] = [];
  faults.forEach((kind, i) => {
    const at = Math.round(span * ((i + 1) / (faults.length + 1) + forced[i]! / faults.length));
    kept.push(at);
    plan.push({ at, op: { kind, downMs: downMs[i]! } as Op });
  });
  // Drawn faults at least 12 s from any other: one too close is dropped, so each recovery is seen.
  for (const [f, op] of ops) {
    const at = 1_000 + Math.round(f * span);
    if (faults.includes(op.kind)) {
      if (kept.some((k) => Math.abs(k - at) < 12_000)) continue;
      kept.push(at);
    }
    plan.push({ at, op });
  }
  return plan.sort((x, y) => x.at - y.at);
}
