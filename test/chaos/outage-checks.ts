/*
 * The assertions of test/chaos/outage.test.ts: what an outage is expected to leave behind for each job,
 * and the timeline it prints.
 */
import { expect } from 'vitest';
import type { PipelineRunResult } from '../../src/workflows/run-types';
import { timeline, type ObservedRun } from './outage-env';

export const EVERY_MS = 2_000;
export const GRACE_MS = 3_000;
/** The latest fire time at or before `ms` (intervals are anchored to the Unix epoch). */
export const fireAtOrBefore = (ms: number) => Math.floor(ms / EVERY_MS) * EVERY_MS;

/** The jobs of one outage, by role: their ids. */
export interface Jobs {
  /** coalesce: true */
  latest: string;
  /** coalesce: false */
  each: string;
  /** coalesce: true, and the job ends during the outage, so its latest occurrence is older than the grace. */
  ended: string;
}

/** What one outage left behind. */
export interface Outage {
  /** When the first worker was killed. */
  down: number;
  /** When the second worker process was spawned (it handles nothing before). */
  back: number;
  /** When the second worker process said it polls: occurrences due until then were missed. */
  ready: number;
  runs: Record<keyof Jobs, ObservedRun[]>;
  skippedOverlap: Record<keyof Jobs, number>;
  missedCatchupWindow: Record<keyof Jobs, number>;
  results: Record<keyof Jobs, (PipelineRunResult | undefined)[]>;
}

/** The assertions of both variants: what ran, what was skipped and why. */
export function checkOutage(o: Outage, label: string): void {
  console.info(
    [
      timeline(`${label}, coalesce true`, o.down, o.ready, o.runs.latest),
      timeline(`${label}, coalesce true, job ended during the outage`, o.down, o.ready, o.runs.ended),
      timeline(`${label}, coalesce false`, o.down, o.ready, o.runs.each),
      `  skipped by Temporal as overlaps: ${JSON.stringify(o.skippedOverlap)}; missed catch-up window: ${JSON.stringify(o.missedCatchupWindow)}`,
    ].join('\n'),
  );
  const firstMissed = fireAtOrBefore(o.down) + EVERY_MS;
  // Every run was first handled by the new worker.
  for (const r of [...o.runs.latest, ...o.runs.each, ...o.runs.ended])
    expect(r.firstTask).toBeGreaterThanOrEqual(o.back);

  // coalesce true: one run, the first missed occurrence, standing for the latest one due when the worker
  // came back, within the grace: it ran (under the old rule its own lateness made it a misfire).
  expect(o.runs.latest).toHaveLength(1);
  const [latest] = o.runs.latest;
  expect(latest!.nominal).toBe(firstMissed);
  expect(latest!.standsFor).toBe(fireAtOrBefore(latest!.firstTask));
  expect(latest!.standsFor! - latest!.nominal).toBeGreaterThanOrEqual(3 * EVERY_MS);
  expect(latest!.firstTask - latest!.nominal).toBeGreaterThan(GRACE_MS);
  expect(latest!.status).toBe('completed');
  expect(o.results.latest[0]).toMatchObject({
    status: 'completed',
    standsFor: new Date(latest!.standsFor!).toISOString(),
  });
  // The occurrences in between were not started: skipped by Temporal (or missed while it was down).
  expect(o.skippedOverlap.latest + o.missedCatchupWindow.latest).toBeGreaterThanOrEqual(
    (latest!.standsFor! - latest!.nominal) / EVERY_MS,
  );

  // coalesce true, job ended: the latest occurrence is the last before endAt, older than the grace.
  expect(o.runs.ended).toHaveLength(1);
  const [ended] = o.runs.ended;
  expect(ended!.nominal).toBe(firstMissed);
  expect(ended!.standsFor).toBe(firstMissed + 2 * EVERY_MS);
  expect(ended!.firstTask - ended!.standsFor!).toBeGreaterThan(GRACE_MS);
  expect(ended).toMatchObject({ status: 'skipped', skipReason: 'misfire' });
  expect(o.results.ended[0]).toMatchObject({ status: 'skipped', skipReason: 'misfire' });

  // coalesce false: one run per occurrence the schedule took, in order.
  const each = o.runs.each;
  const nominals = each.map((r) => r.nominal);
  expect(new Set(nominals).size).toBe(nominals.length);
  const occurrences = (fireAtOrBefore(o.ready) - firstMissed) / EVERY_MS + 1;
  expect(each.length + o.missedCatchupWindow.each).toBe(occurrences);
  for (let i = 1; i < each.length; i++)
    expect(each[i]!.firstTask).toBeGreaterThanOrEqual(each[i - 1]!.firstTask);
  // The moment the new worker took its first run of the job (the server's clock): every occurrence due
  // more than the grace before it was skipped (misfire), though Temporal started each buffered run only
  // once the one before had closed. Whether a later one ran is judged run by run below: a run queued
  // behind a predecessor that ran is judged after that predecessor's time with a worker, so on a loaded
  // machine it can miss the grace though its nominal time was within the grace of this first poll.
  const polled = each[0]!.firstTask;
  for (const r of each) {
    expect(r.standsFor).toBeUndefined();
    if (r.nominal < polled - GRACE_MS) expect(r).toMatchObject({ status: 'skipped', skipReason: 'misfire' });
  }
  expect(each.filter((r) => r.status === 'completed').length).toBeGreaterThanOrEqual(1);
  const stale = each.filter((r) => r.nominal < o.back - GRACE_MS);
  expect(stale.length).toBeGreaterThanOrEqual(2);
  // The rule, run by run: a run a second or more late at its first task records when it was judged.
  // Queued behind its predecessor (which closed after this run came due), that is when it could have
  // started had Temporal started each queued run at once: when the predecessor was judged, if it skipped
  // itself, else that plus its time with a worker; not before its own nominal time; plus this run's own
  // wait for a worker once Temporal started it. Not queued, its first task.
  for (let i = 0; i < each.length; i++) {
    const r = each[i]!;
    const before = each[i - 1];
    if (r.firstTask - r.nominal < 1_000) {
      expect(r.judgedAt).toBeUndefined();
      expect(r.status).toBe('completed');
      continue;
    }
    if (before?.closed !== undefined && before.closed >= r.nominal) {
      const ready =
        before.judgedAt === undefined
          ? before.closed
          : before.skipReason === 'misfire'
            ? before.judgedAt
            : before.judgedAt + (before.closed - before.firstTask);
      expect(r.judgedAt).toBe(Math.max(r.nominal, ready) + (r.firstTask - r.started));
    } else expect(r.judgedAt).toBe(r.firstTask);
    if (r.judgedAt! - r.nominal > GRACE_MS) expect(r.skipReason).toBe('misfire');
    else expect(r.status).toBe('completed');
  }
}
