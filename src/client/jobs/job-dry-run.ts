import { DateTime } from 'luxon';
import { describeValue, InvalidArgumentError } from '../../errors';
import { parseDuration } from '../../parse/duration';
import { parseInstant } from '../../parse/instant';
import { decide } from '../../schedule/dry-run-decide';
import { serverFires } from '../../schedule/dry-run-times';
import type { DryRunOptions, JobDryRun } from '../../schedule/dry-run-types';
import { InvalidWindowError } from '../../schedule/errors';
import { compilePolicies } from '../../schedule/policies';
import type { Trigger } from '../../schedule/trigger-types';
import { splitOptions, type JobOptions } from './store/job-options';

/*
 * dryRun(job, { from, to }): what a job would do in a window, computed locally, nothing started. The times
 * come from the one model of them (previewTrigger and the DST policy's compiled skips, dry-run-times.ts),
 * the policies from compilePolicies, the decisions from dry-run-decide.ts (whose header lists every rule).
 */

/** A job as `schedule()`, `scheduleInterval()` or `scheduleAt()` takes it (its id, args, note... are ignored). */
export type DryRunJob = JobOptions & Trigger;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The workersDown spans in ms, checked, sorted and merged. */
function downSpans(spans: unknown): { from: number; to: number }[] {
  if (spans === undefined) return [];
  if (!Array.isArray(spans)) {
    throw new InvalidWindowError(
      'workersDown',
      `workersDown must be a list of { from, to } spans, got ${describeValue(spans)}`,
    );
  }
  const read = spans.map((s: unknown, i) => {
    const field = `workersDown[${i}]`;
    if (typeof s !== 'object' || s === null) {
      throw new InvalidWindowError(field, `${field} must be a { from, to } span, got ${describeValue(s)}`);
    }
    const { from, to } = s as { from?: unknown; to?: unknown };
    const a = parseInstant(from, `${field}.from`, { error: InvalidWindowError }).getTime();
    const b = parseInstant(to, `${field}.to`, { error: InvalidWindowError }).getTime();
    if (b <= a) throw new InvalidWindowError(`${field}.to`, `${field}.to must be after its from`);
    return { from: a, to: b };
  });
  read.sort((x, y) => x.from - y.from);
  const merged: { from: number; to: number }[] = [];
  for (const s of read) {
    const last = merged[merged.length - 1];
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else merged.push({ ...s });
  }
  return merged;
}

/**
 * What a job would do in the window `(from, to]`, without starting anything and without a server: every
 * time the server fires it there (what ListScheduleMatchingTimes lists), each with its decision (`run`,
 * `buffered`, `coalesced` or `skip` with its reason) as the overlap policy and the job guards will take
 * it, plus the DST dates and excluded dates of the window. Assumptions: `runDuration` (how long runs take)
 * and `workersDown` (spans with no worker). The rules are listed in docs/testing.md.
 *
 * ```ts
 * dryRun({ every: '10m', misfireGraceTime: '15m' }, {
 *   from: '2027-01-01T00:00:00Z', to: '2027-01-01T02:00:00Z',
 *   runDuration: '12m', workersDown: [{ from: '2027-01-01T00:30:00Z', to: '2027-01-01T01:05:00Z' }],
 * }).occurrences; // 00:10 run, 00:20 skip (overlap), 00:30 run at 01:05 standing for 01:00, 00:40 coalesced ...
 * ```
 *
 * @throws InvalidWindowError for a bad window (`to` not after `from`, more than 1,000 occurrences) or
 * `workersDown` span; InvalidTriggerError, InvalidPolicyError, InvalidArgumentError for a bad job.
 */
export function dryRun(job: DryRunJob, opts: DryRunOptions): JobDryRun {
  return dryRunInWindow(job, readDryRunWindow(opts), opts);
}

/** A dry run's window and assumptions, checked (instants in Unix ms). */
export interface DryRunWindow {
  from: number;
  to: number;
  runDurationMs: number;
  workersDown: { from: number; to: number }[];
}

/**
 * Checks a dry run's window and assumptions (before any call to the server, for a job read by id).
 *
 * @throws InvalidWindowError, InvalidArgumentError as {@link dryRun}.
 */
export function readDryRunWindow(opts: DryRunOptions): DryRunWindow {
  if (typeof opts !== 'object' || opts === null) {
    throw new InvalidArgumentError(
      'options',
      `dryRun needs a window such as { from: '2027-01-01T00:00:00Z', to: '2027-01-02T00:00:00Z' }, got ${describeValue(opts)}`,
    );
  }
  const from = parseInstant(opts.from, 'from', { error: InvalidWindowError }).getTime();
  const to = parseInstant(opts.to, 'to', { error: InvalidWindowError }).getTime();
  if (to <= from) {
    throw new InvalidWindowError('to', `"to" (${iso(to)}) must be after "from" (${iso(from)})`);
  }
  const runDurationMs =
    opts.runDuration === undefined ? 0 : parseDuration(opts.runDuration, 'runDuration', { allowZero: true });
  return { from, to, runDurationMs, workersDown: downSpans(opts.workersDown) };
}

/** {@link dryRun} with its window read already. */
export function dryRunInWindow(
  job: DryRunJob,
  { from, to, runDurationMs, workersDown }: DryRunWindow,
  opts: Pick<DryRunOptions, 'defaultTimezone' | 'defaultDst'>,
): JobDryRun {
  const { trigger, job: fields, policies: given } = splitOptions(job);
  const policies = compilePolicies(given);
  const fireOpts = {
    defaultTimezone: opts.defaultTimezone ?? 'UTC',
    ...(opts.defaultDst ? { defaultDst: opts.defaultDst } : {}),
    ...(policies.jitterMs !== undefined ? { jitterMs: policies.jitterMs } : {}),
    ...(policies.startAt ? { startAt: policies.startAt } : {}),
    ...(policies.endAt ? { endAt: policies.endAt } : {}),
  };
  const window = serverFires(trigger, from, to, fireOpts);
  // A late run may stand for a fire after the window, up to the end of the last span with no worker.
  const horizon = Math.max(to, ...workersDown.map((s) => s.to));
  const fires =
    horizon > to ? serverFires(trigger, from, horizon, fireOpts, 'workersDown').fires : window.fires;
  const occurrences = decide({
    fires,
    inWindow: window.fires.length,
    overlap: policies.overlap,
    maxInstances: policies.maxInstances,
    ...(policies.misfireGraceMs !== undefined ? { misfireGraceMs: policies.misfireGraceMs } : {}),
    runDurationMs,
    workersDown,
    paused: fields.paused === true,
  });
  const totals: Record<string, number> = {};
  for (const o of occurrences) {
    const key = o.reason ? `${o.decision}:${o.reason}` : o.decision;
    totals[key] = (totals[key] ?? 0) + 1;
  }
  const zone = window.timezone;
  const [firstDate, lastDate] = [from, to].map((ms) => DateTime.fromMillis(ms, { zone }).toISODate()!);
  return {
    timezone: zone,
    from: iso(from),
    to: iso(to),
    policies: {
      overlap: policies.overlap,
      maxInstances: policies.maxInstances,
      ...(policies.misfireGraceMs !== undefined ? { misfireGraceMs: policies.misfireGraceMs } : {}),
      runDurationMs,
    },
    occurrences,
    totals,
    dstWarnings: window.preview.dstWarnings.filter((w) => {
      const at = Date.parse(w.transition);
      return at > from && at <= to;
    }),
    excludedDates: window.preview.excludedDates.filter((d) => d.date >= firstDate! && d.date <= lastDate!),
  };
}
