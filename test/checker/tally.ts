/*
 * The checker's figures, and the report printed at the end of every run. An outcome is counted only where
 * a check could fire on it: a nominal time with no run of a job whose counters were never read, or a run
 * whose lateness lies between the two onLate bounds, checks nothing and counts nothing. An outcome is
 * `ambiguous` when the model allows more than one result for it (a call that could change it was in flight),
 * so only part of the check applies (a second run is still a violation, a missing one is not).
 */
import type { History } from './history';

export interface Violation {
  invariant: string;
  detail: string;
}

export type Certainty = 'certain' | 'ambiguous';

/** Checks made and cases excused, as the invariants go. */
export class Tally {
  /** Outcomes checked, by invariant. */
  readonly checked: Record<string, Record<Certainty, number>> = {};
  /** Cases the model excused, by the Temporal behaviour (or fault) that explains them. */
  readonly excused: Record<string, number> = {};
  /** The nominal times the model listed where the job may have been active, certain or ambiguous. */
  readonly nominal: Record<Certainty, number> = { certain: 0, ambiguous: 0 };
  /** The same, by the kind of trigger that named them (`dst backfilled`: a DST policy over a clock change). */
  readonly nominalByTrigger: Record<string, Record<Certainty, number>> = {};

  check(invariant: string, how: Certainty = 'certain', n = 1): void {
    if (n <= 0) return;
    const c = (this.checked[invariant] ??= { certain: 0, ambiguous: 0 });
    c[how] += n;
  }

  nominalTime(kind: string, how: Certainty): void {
    this.nominal[how]++;
    const c = (this.nominalByTrigger[kind] ??= { certain: 0, ambiguous: 0 });
    c[how]++;
  }

  excuse(reason: string, n = 1): void {
    if (n > 0) this.excused[reason] = (this.excused[reason] ?? 0) + n;
  }

  total(how: Certainty): number {
    return Object.values(this.checked).reduce((n, c) => n + c[how], 0);
  }
}

export interface Figures {
  operations: number;
  operationsFailed: number;
  byKind: Record<string, number>;
  faults: Record<string, number>;
  jobs: number;
  runs: number;
  stepExecutions: number;
  alerts: number;
  /** Creates left out for want of room (the server refused the oldest job's removal for a minute). */
  createsLeftOut: number;
  /** Jobs paused at rest and then found gone, each after a remove that failed but may have landed. */
  vanishedAtRest: number;
  /** Calls that took the checker's whole deadline (CALL_DEADLINE_MS), and of them those only its timer ended. */
  slowCalls: number;
  hungCalls: number;
  /** Where the checker's model of the nominal times and the server disagree (also violations). */
  modelFindings: string[];
  tally: Tally;
}

export interface CheckResult {
  violations: Violation[];
  figures: Figures;
}

const list = (r: Record<string, number>) =>
  Object.entries(r)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

/** The report: figures, then every violation, with the seed and how to replay it. */
export function report(h: History, r: CheckResult, replay: string): string {
  const f = r.figures;
  const t = f.tally;
  const byInvariant = Object.entries(t.checked)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, c]) => `${k} ${c.certain}/${c.ambiguous}`)
    .join(', ');
  const violationsBy: Record<string, number> = {};
  for (const x of r.violations) violationsBy[x.invariant] = (violationsBy[x.invariant] ?? 0) + 1;
  const lines = [
    `model-based checker: seed ${h.seed}, ${Math.round(h.durationMs / 1000)} s of operations`,
    `  operations by verb: ${f.operations} (${f.operationsFailed} failed: refused or met a fault): ${list(f.byKind)}`,
    `  faults by kind: ${list(f.faults)}`,
    `  jobs: ${f.jobs}; nominal times: ${t.nominal.certain} certain, ${t.nominal.ambiguous} ambiguous; runs: ${f.runs}; step executions: ${f.stepExecutions}; alerts received: ${f.alerts}`,
    `  nominal times by trigger, certain/ambiguous: ${
      Object.entries(t.nominalByTrigger)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, c]) => `${k} ${c.certain}/${c.ambiguous}`)
        .join(', ') || 'none'
    }`,
    `  creates left out for want of room: ${f.createsLeftOut}; jobs found gone at rest after a failed remove: ${f.vanishedAtRest}`,
    `  calls that took the whole deadline: ${f.slowCalls} (${f.hungCalls} ended only by the timer, past the gRPC deadline)`,
    `  outcomes checked: ${t.total('certain')} certain, ${t.total('ambiguous')} ambiguous (by invariant, certain/ambiguous: ${byInvariant || 'none'})`,
    `  excused by reason: ${list(t.excused)}`,
    `  model findings (the checker's model and the server disagree): ${f.modelFindings.length}`,
    ...f.modelFindings.map((x) => `    FINDING ${x}`),
    `  violations: ${r.violations.length} (${list(violationsBy)})`,
  ];
  for (const x of r.violations) lines.push(`  VIOLATION ${x.invariant}: ${x.detail}`);
  if (r.violations.length) lines.push(`  replay: ${replay}`);
  return lines.join('\n');
}
