/*
 * The checker's seeded generator: from FUZZ_SEED (test/helpers/fuzz.ts) and a duration, a plan of timed
 * operations, the same plan for the same seed and duration. fast-check draws it (fc.sample with the seed);
 * the plan is then replayed against the real servers, where timing is not the plan's to decide: two runs of
 * one seed ask the same things at the same offsets, and the invariants hold whatever the interleaving.
 */
import fc from 'fast-check';

/** A job as the plan asks for it (its id is given at run time). */
export interface JobSpec {
  trigger:
    | { kind: 'interval'; everyS: number }
    | { kind: 'calendar'; stepS: number }
    | { kind: 'once'; inMs: number };
  maxInstances: 1 | 2;
  coalesce: boolean;
  /** misfireGraceTime, seconds; absent: none. */
  graceS?: number;
  /** How long the job's second step works. */
  ms: number;
  onMissed: boolean;
  /** onLate with lateAfter 2 s. */
  onLate: boolean;
}

/** `job` is an index into the jobs created so far (taken modulo their number when the op runs). */
export type Op =
  | { kind: 'create'; job: JobSpec }
  | { kind: 'modify'; job: number; ms: number; graceS: number | null }
  | { kind: 'pause' | 'resume' | 'trigger' | 'remove'; job: number }
  | { kind: 'backfill'; job: number; spanS: number }
  | { kind: 'key-burst'; key: number; n: number; ms: number }
  | { kind: 'parent'; ms: number; signalAfterMs: number }
  | { kind: 'flaky'; redriveAfterMs: number }
  | { kind: 'worker-kill'; downMs: number }
  | { kind: 'temporal-kill'; downMs: number }
  | { kind: 'postgres-stop'; downMs: number };

export type OpKind = Op['kind'];

export interface TimedOp {
  /** Offset from the start of the run, ms. */
  at: number;
  op: Op;
}

const jobSpec: fc.Arbitrary<JobSpec> = fc.record(
  {
    trigger: fc.oneof(
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
    ),
    maxInstances: fc.constantFrom(1 as const, 2 as const),
    coalesce: fc.boolean(),
    graceS: fc.option(fc.constantFrom(2, 3, 5), { nil: undefined }),
    ms: fc.integer({ min: 200, max: 6_000 }),
    onMissed: fc.boolean(),
    onLate: fc.boolean(),
  },
  { requiredKeys: ['trigger', 'maxInstances', 'coalesce', 'ms', 'onMissed', 'onLate'] },
);

const ref = fc.nat({ max: 1_000 });

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
    ...(['pause', 'resume', 'trigger', 'remove'] as const).map((kind) => ({
      weight: kind === 'remove' ? 1 : 3,
      arbitrary: ref.map((job): Op => ({ kind, job })),
    })),
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('backfill' as const),
        job: ref,
        spanS: fc.integer({ min: 3, max: 10 }),
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
  const faults: OpKind[] = ['worker-kill', ...opts.serverFaults];
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
