/*
 * Which trigger a job had when: its create's, then each rescheduleJob's. A reschedule may land anywhere
 * between its sending and its answer (give or take SLACK_MS), and one that failed may have landed or not,
 * until a later one surely did: around and after such calls a time is AMBIGUOUS (either trigger may have
 * fired it), elsewhere it is CERTAIN under the one trigger surely in force.
 */
import type { Call, JobLife } from './history';
import { nominalTimes, type ModelTrigger } from './nominal-times';

/** How far around a call's [sent, answered] the server may still apply it (fire processing, clocks). */
export const SLACK_MS = 2_000;

interface Segment {
  model: ModelTrigger;
  /** Surely in force in (sureLo, sureHi); maybe in force in [maybeLo, maybeHi]. */
  sureLo: number;
  sureHi: number;
  maybeLo: number;
  maybeHi: number;
}

function segments(job: JobLife): Segment[] {
  const calls: { call: Call; model: ModelTrigger }[] = [
    { call: job.create, model: job.model },
    ...job.reschedules.map((r) => ({ call: r, model: r.model })),
  ];
  return calls.map((s, k) => {
    const next = calls[k + 1];
    const laterOk = calls.slice(k + 1).find((x) => x.call.ok);
    return {
      model: s.model,
      sureLo: k === 0 ? -Infinity : s.call.ok ? s.call.t1 + SLACK_MS : Infinity,
      sureHi: next ? next.call.t0 - SLACK_MS : Infinity,
      maybeLo: k === 0 ? -Infinity : s.call.t0 - SLACK_MS,
      maybeHi: laterOk ? laterOk.call.t1 + SLACK_MS : Infinity,
    };
  });
}

/** The trigger surely in force last (the last reschedule answered, else the create's). */
export function modelInForce(job: JobLife): ModelTrigger {
  return [...job.reschedules].reverse().find((r) => r.ok)?.model ?? job.model;
}

/** The nominal times in (from, to] of the triggers the job had, each certain or ambiguous, with its trigger's kind. */
export function scheduledTimes(
  job: JobLife,
  from: number,
  to: number,
): Map<number, { how: 'certain' | 'ambiguous'; kind: string }> {
  const out = new Map<number, { how: 'certain' | 'ambiguous'; kind: string }>();
  for (const s of segments(job)) {
    const lo = Math.max(from, s.maybeLo);
    const hi = Math.min(to, s.maybeHi);
    if (lo >= hi) continue;
    for (const t of nominalTimes(s.model, lo, hi)) {
      if (t > s.sureLo && t < s.sureHi) out.set(t, { how: 'certain', kind: s.model.kind });
      else if (!out.has(t)) out.set(t, { how: 'ambiguous', kind: s.model.kind });
    }
  }
  return out;
}

/**
 * The times a backfill call asked for: those of the trigger in force while it ran (the product backfills
 * the job's spec as it is then), certain when only one trigger can have been.
 */
export function backfilledTimes(
  job: JobLife,
  b: Call & { from: number; to: number },
): Map<number, { sure: boolean; kind: string }> {
  const possible = segments(job).filter((s) => s.maybeLo <= b.t1 + SLACK_MS && s.maybeHi >= b.t0 - SLACK_MS);
  const sure = possible.length === 1 && possible[0]!.sureLo < b.t0 && possible[0]!.sureHi > b.t1;
  const out = new Map<number, { sure: boolean; kind: string }>();
  for (const s of possible)
    for (const t of nominalTimes(s.model, b.from, b.to))
      out.set(t, { sure: sure && b.ok, kind: `${s.model.kind} backfilled` });
  return out;
}
