/*
 * I6: every alert fired once per cause, none without one (see invariants.ts for the exact statement).
 * Alerts are judged only by what the webhook received (receiver.ts), never by how the product decides.
 */
import type { JobRun } from '../../src/client/runs/run-types';
import type { History, JobLife } from './history';
import type { Tally, Violation } from './tally';

/** The onLate setting of the checker's jobs (generator.ts). */
export const LATE_AFTER_MS = 2_000;
/** How long after a worker SIGKILL a second delivery of one alert is an activity's retry, not a bug. */
export const REDELIVERY_MS = 20_000;

const occurrenceOf = (r: JobRun) => (r.standsFor ?? r.scheduledAt!).getTime();

export function checkAlerts(h: History, v: Violation[], tally: Tally): void {
  const jobOfRun = new Map<string, { job: JobLife; run: JobRun }>();
  for (const job of h.jobs)
    for (const run of job.runs) jobOfRun.set(`${run.workflowId}|${run.runId}`, { job, run });
  const seen = new Map<string, number>();
  const kills = h.faults.filter((f) => f.kind === 'worker-kill').map((f) => f.t0);
  for (const d of h.alerts) {
    const e = d.event;
    const id = `${e.kind}|${e.workflowId}|${e.runId}|${e.reason ?? ''}`;
    const prior = seen.get(id);
    tally.check('I6');
    if (prior !== undefined) {
      // An activity is delivered at least once: a worker SIGKILLed after the post and before the activity
      // completed has it retried on another worker, which posts again.
      if (kills.some((k) => Math.abs(k - prior) < REDELIVERY_MS))
        tally.excuse('alert delivered again within 20 s of a worker SIGKILL (at-least-once activity)');
      else
        v.push({
          invariant: 'I6',
          detail: `alert ${e.kind} for ${e.workflowId} delivered twice with no worker killed near it`,
        });
      continue;
    }
    seen.set(id, d.at);
    const cause = jobOfRun.get(`${e.workflowId}|${e.runId}`);
    if (e.kind === 'missed' && (e.reason === 'misfire' || e.reason === 'max-instances')) {
      if (!cause?.job.spec.onMissed || cause.run.status !== 'skipped' || cause.run.skipReason !== e.reason)
        v.push({
          invariant: 'I6',
          detail: `missed alert (${e.reason}) for ${e.workflowId}, which did not skip for that reason (${cause?.run.status ?? 'unknown run'})`,
        });
    } else if (e.kind === 'late') {
      if (!cause?.job.spec.onLate)
        v.push({ invariant: 'I6', detail: `late alert for ${e.workflowId}, whose job has no onLate` });
    } else
      v.push({ invariant: 'I6', detail: `unexpected alert ${e.kind} (${e.reason ?? ''}) for ${e.jobId}` });
  }
  for (const { job, run } of jobOfRun.values()) {
    if (!run.scheduledAt) continue;
    const key = (kind: string, reason = '') => `${kind}|${run.workflowId}|${run.runId}|${reason}`;
    if (
      job.spec.onMissed &&
      run.status === 'skipped' &&
      (run.skipReason === 'misfire' || run.skipReason === 'max-instances')
    ) {
      tally.check('I6');
      if (!seen.has(key('missed', run.skipReason)))
        v.push({
          invariant: 'I6',
          detail: `run ${run.workflowId} skipped (${run.skipReason}) but no missed alert arrived`,
        });
    }
    if (!job.spec.onLate || run.status === 'skipped') continue;
    const occ = occurrenceOf(run);
    // Late is measured to the first step's start, which lies between the run's start and that step's
    // record: only a run late (or on time) by both bounds, with margins for the clocks, is judged.
    const lower = run.startedAt.getTime() - occ;
    const first = h.steps.find((s) => s.wf === run.workflowId && s.run === run.runId && s.ev === 'start');
    const upper = first ? first.at - occ : Infinity;
    const alerted = seen.has(key('late'));
    if (lower > LATE_AFTER_MS + 500 && first) {
      tally.check('I6');
      if (!alerted)
        v.push({
          invariant: 'I6',
          detail: `run ${run.workflowId} started ${lower} ms after its occurrence (lateAfter 2 s) but no late alert arrived`,
        });
    }
    if (upper < LATE_AFTER_MS - 200) {
      tally.check('I6');
      if (alerted)
        v.push({
          invariant: 'I6',
          detail: `late alert for ${run.workflowId}, whose first step started ${upper} ms after its occurrence (lateAfter 2 s)`,
        });
    }
  }
}
