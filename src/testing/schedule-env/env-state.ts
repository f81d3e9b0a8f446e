import { InvalidArgumentError } from '../../errors';
import type { Steps } from '../../worker/create-worker';
import type { JobAlertEvent } from '../../workflows/alert-types';
import type { WorkerAvailability } from './run-control';
import type {
  CapturedAlert,
  OccurrenceRecord,
  RunRecord,
  StepDuration,
  VirtualDeadLetter,
} from './schedule-env-types';
import type { VirtualClock } from './virtual-clock';

/*
 * What the schedule test environment shares between its jobs: the clock, the steps, the spans with no worker
 * or no server, and the record of what happened (occurrences, runs, alerts, dead letters).
 */

/** A span `[from, to)` in Unix ms. */
export interface Span {
  from: number;
  to: number;
}

/** Adds a span to a sorted, merged list. */
function addSpan(spans: Span[], s: Span): void {
  spans.push({ ...s });
  spans.sort((a, b) => a.from - b.from);
  const merged: Span[] = [];
  for (const x of spans) {
    const last = merged[merged.length - 1];
    if (last && x.from <= last.to) last.to = Math.max(last.to, x.to);
    else merged.push({ ...x });
  }
  spans.splice(0, spans.length, ...merged);
}

const within = (spans: readonly Span[], t: number) => spans.find((s) => t >= s.from && t < s.to);

/** The environment's shared state. */
export class EnvState implements WorkerAvailability {
  readonly workersDown: Span[] = [];
  readonly serverDown: Span[] = [];
  readonly occurrences: OccurrenceRecord[] = [];
  readonly runs: RunRecord[] = [];
  readonly alerts: CapturedAlert[] = [];
  readonly deadLetters: VirtualDeadLetter[] = [];

  constructor(
    readonly clock: VirtualClock,
    readonly steps: Steps,
    readonly durations: Record<string, StepDuration>,
  ) {}

  /** Adds a span with no worker (`server` false) or no server; it must not start in the past. */
  addDown(kind: 'workers' | 'server', span: Span, field: string): void {
    if (span.to <= span.from)
      throw new InvalidArgumentError(`${field}.to`, `${field}.to must be after its from`);
    if (span.from < this.clock.now()) {
      throw new InvalidArgumentError(
        `${field}.from`,
        `${field}.from (${new Date(span.from).toISOString()}) is before the environment's now (${new Date(this.clock.now()).toISOString()}): virtual time cannot change the past; give a span that starts now or later`,
      );
    }
    addSpan(kind === 'workers' ? this.workersDown : this.serverDown, span);
  }

  /** Whether the server is down at `t`. */
  serverDownAt(t: number): Span | undefined {
    return within(this.serverDown, t);
  }

  /** A worker needs the server too: a task is taken at the first instant both are up. */
  upAt(at: number): number {
    let t = at;
    for (;;) {
      const s = within(this.workersDown, t) ?? within(this.serverDown, t);
      if (!s) return t;
      t = s.to;
    }
  }

  downWithin(from: number, to: number): number | undefined {
    const hits = [...this.workersDown, ...this.serverDown]
      .filter((s) => s.from < to && s.to > from)
      .map((s) => Math.max(s.from, from));
    return hits.length > 0 ? Math.min(...hits) : undefined;
  }

  /** An error of the environment itself (a bug, or a step's stand-in breaking the rules): thrown by the next advance. */
  crashed: unknown;

  /** Keeps the first error of the environment itself, for the advance under way to throw. */
  crash(err: unknown): void {
    this.crashed ??= err;
  }

  /** Captures an alert (never sent). */
  alert(alert: CapturedAlert['alert'], event: JobAlertEvent): void {
    this.alerts.push({ alert, event });
  }
}
