/*
 * I6: every alert fired once per cause, none without one (see invariants.ts for the exact statement).
 * Alerts are judged only by what the webhook received (receiver.ts), never by how the product decides.
 */
import type { JobRun } from '../../src/client/runs/run-types';
import type { JobAlertEvent } from '../../src/workflows/alert-types';
import { isServerFault, type Call, type History, type JobLife } from './history';
import { modelTimes } from './job-invariants';
import { nominalTimes } from './nominal-times';
import type { Tally, Violation } from './tally';

/** The onLate setting of the checker's jobs (generator.ts). */
export const LATE_AFTER_MS = 2_000;
/** How long after a worker SIGKILL a second delivery of one alert is an activity's retry, not a bug. */
export const REDELIVERY_MS = 20_000;
/**
 * The soonest a delivery's retry can post after the attempt before it: its start-to-close timeout (the
 * checker's webhooks: 10 s + 5 s) less the 10 s the post itself may have taken.
 */
export const RETRY_AFTER_MS = 5_000;
/** How long a watchdog alert may take from its due moment to the receiver, with no fault in between. */
export const WATCHDOG_MARGIN_MS = 10_000;
const SLACK_MS = 2_000;

/** The cause an alert stands for: two deliveries of one cause are one alert delivered twice. */
function causeOf(e: JobAlertEvent): string {
  switch (e.kind) {
    case 'silent':
    case 'recovered':
      return `${e.kind}|${e.jobId}|${e.lastSuccessAt ?? ''}`;
    case 'missed':
      if (e.reason === 'not-started')
        return `${e.kind}|${e.jobId}|${e.reason}|${(e.nominalTimes ?? []).join(',')}`;
      if (e.reason === 'overlap' || e.reason === 'catchup-window')
        return `${e.kind}|${e.jobId}|${e.reason}|${e.at}|${(e.nominalTimes ?? []).join(',')}|${e.count ?? ''}`;
      return `${e.kind}|${e.workflowId}|${e.runId}|${e.reason ?? ''}`;
    default:
      return `${e.kind}|${e.workflowId}|${e.runId}|${e.reason ?? ''}`;
  }
}

const occurrenceOf = (r: JobRun) => (r.standsFor ?? r.scheduledAt!).getTime();

export function checkAlerts(h: History, v: Violation[], tally: Tally): void {
  const jobOfRun = new Map<string, { job: JobLife; run: JobRun }>();
  for (const job of h.jobs)
    for (const run of job.runs) jobOfRun.set(`${run.workflowId}|${run.runId}`, { job, run });
  const seen = new Map<string, { at: number; event: string }>();
  /** The latest delivery of each cause: a retry follows the attempt before it. */
  const last = new Map<string, number>();
  const kills = h.faults
    .filter((f) => f.kind === 'worker-kill' || f.kind === 'alert-worker-kill')
    .map((f) => f.t0);
  const serverDown = h.faults.filter(isServerFault).map((f) => f.t0);
  for (const d of h.alerts) {
    const e = d.event;
    const id = causeOf(e);
    const prior = seen.get(id);
    const prev = last.get(id);
    last.set(id, d.at);
    tally.check('I6');
    if (prior !== undefined && prev !== undefined) {
      // An activity runs at least once: a worker SIGKILLed after its post and before the activity completed
      // has the activity retried elsewhere (after its timeout), which posts the very same alert again (one
      // raise: the same event, `at` included). So does a server that went down just after the post (a
      // Temporal SIGKILL, PostgreSQL stopped): the worker's report of the completion is not recorded, and
      // Temporal retries the attempt when its start-to-close timeout passes (a webhook's timeout + 5 s,
      // src/workflows/alerts/raise-alert.ts), so no sooner than RETRY_AFTER_MS after the post. Seen at seed
      // 2931: misfire alerts posted at 18:40:01.7-.8 and again at 18:40:22-25, PostgreSQL stopped at
      // 18:40:03.9; one posted at 18:40:36.985 and again at 18:41:08.2, PostgreSQL stopped at 18:40:37.004.
      // A second raise for one cause (another `at`) is never excused, nor a repeat with no such fault near
      // it (seen in standalone repros: each silent alert posted twice, 40-100 ms apart, both deliveries
      // logged as attempt 1; unexplained, so reported, not excused).
      const same = prior.event === JSON.stringify(e);
      const lost =
        serverDown.some((s) => s >= prev - 1_000 && s - prev < REDELIVERY_MS) &&
        d.at - prev >= RETRY_AFTER_MS;
      if (same && kills.some((k) => Math.abs(k - prev) < REDELIVERY_MS))
        tally.excuse(
          'the same alert delivered again within 20 s of a worker SIGKILL (at-least-once activity)',
        );
      else if (same && lost)
        tally.excuse(
          'the same alert delivered again after the server went down within 20 s of its post (completion not recorded, retried at its timeout)',
        );
      else
        v.push({
          invariant: 'I6',
          detail: `alert ${e.kind} for ${e.workflowId ?? e.jobId} (${e.lastSuccessAt ?? e.reason ?? ''}) delivered twice (${same ? 'the same raise, with no worker killed near it nor the server down just after it' : `raised again at ${e.at}`})`,
        });
      continue;
    }
    seen.set(id, { at: d.at, event: JSON.stringify(e) });
    const cause = jobOfRun.get(`${e.workflowId}|${e.runId}`);
    if (e.kind === 'silent' || e.kind === 'recovered') continue; // checkSilence
    if (e.kind === 'missed' && (e.reason === 'overlap' || e.reason === 'catchup-window')) continue; // checkCounted
    if (e.kind === 'missed' && e.reason === 'not-started') continue; // checkNotStarted
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
  const firsts = [...seen.keys()].map((id) => h.alerts.find((d) => causeOf(d.event) === id)!);
  for (const job of h.jobs) {
    checkSilence(job, h, firsts, v, tally);
    checkCounted(job, firsts, v, tally);
    checkNotStarted(job, h, firsts, v, tally);
  }
}

/**
 * How long after its restart a SIGKILLed alert worker may still hold the alerts back. Since f2f59e3 one
 * shared evaluator per alert queue evaluates every job, as one long activity (an hour of 5 s waves) with a
 * 30 s heartbeat timeout (src/workflows/alerts/evaluator-workflow.ts). Temporal learns that an activity's
 * worker is gone only when its heartbeat timeout passes, and only then retries the attempt
 * (https://docs.temporal.io/encyclopedia/detecting-activity-failures, "Activity Heartbeats"): a restarted
 * worker has nothing to run until then. Seen at seed 20261201 (90 s, 17:31 UTC): the alert worker killed at
 * 17:31:02.4 and back at 17:31:08.1; the evaluator's next alert (a `recovered` for a run that completed at
 * 17:31:05.2) came at 17:31:33.8, and the job was removed at rest before the silent period after that run
 * could be raised.
 */
export const EVALUATOR_RESUME_MS = 30_000;

/**
 * How long after a run completes the evaluator surely sees it when no deadline runs (the job silent): its
 * listing of completed runs every third wave (15 s), then the wave that checks the deadline after it (5 s),
 * and 5 s more for visibility (docs/operations.md, "The dead-man deadline"). Seen at seed 5183 (02:47): a
 * silent raised at 02:47:54.535, the run that ended it closed at 02:47:54.563 (Temporal back from a SIGKILL
 * at 02:47:54.8), `recovered` at 02:48:12.8, and the next run completed at 02:48:16.4, before the wave after.
 */
export const SUCCESS_SEEN_MS = 25_000;

/**
 * The latest the evaluator's first read of a job can come: FIRST_READ_MS after the create, or after a server
 * fault that overlaps it (its reads fail meanwhile).
 */
export function firstReadOf(job: JobLife, h: History): number {
  let firstRead = job.create.t1 + FIRST_READ_MS;
  for (const f of [...h.faults].sort((a, b) => a.t0 - b.t0))
    if (isServerFault(f) && f.t0 <= firstRead && f.t1 >= job.create.t0)
      firstRead = Math.max(firstRead, f.t1 + FIRST_READ_MS);
  return firstRead;
}

/**
 * Faults that hold the alerts' timer or delivery back: the server down, or the alert worker down (and for
 * {@link EVALUATOR_RESUME_MS} after it is back).
 */
const holdsWatchdog = (h: History, lo: number, hi: number) =>
  h.faults.some(
    (f) =>
      f.t0 <= hi &&
      ((isServerFault(f) && f.t1 >= lo) ||
        (f.kind === 'alert-worker-kill' && f.t1 + EVALUATOR_RESUME_MS >= lo)),
  );

/**
 * The dead-man switch (expectSuccessWithin E, onSilent), judged from the completed runs (each tells the
 * watchdog as it completes, just before it closes) and the webhook's deliveries only:
 * - never early: no silent alert within E of a completed run, nor by its own account (at - lastSuccessAt);
 * - never missing: a stretch with no completed run longer than E (+ a margin), from the watch's start or a
 *   completed run (or an edit, which may reconfigure the watch) to the next or to the end of the watch (the
 *   schedule gone: removed, deleted with the CLI, or a one-off that ran), gets a silent alert, unless a
 *   fault held the watchdog back when it was due;
 * - a `recovered` alert only after a silent one of that period and a completed run after it, and one is
 *   due then;
 * - none after the schedule was surely gone (the watchdog ends quietly then).
 * One per cause: a second delivery of one period's alert is the duplicate check's (checkAlerts).
 */
function checkSilence(
  job: JobLife,
  h: History,
  alerts: History['alerts'],
  v: Violation[],
  tally: Tally,
): void {
  const E = (job.spec.silentS ?? 0) * 1_000;
  const mine = alerts.filter(
    (d) => d.event.jobId === job.id && (d.event.kind === 'silent' || d.event.kind === 'recovered'),
  );
  if (!E) {
    for (const d of mine) {
      tally.check('I6');
      v.push({
        invariant: 'I6',
        detail: `${d.event.kind} alert for job ${job.id}, which has no expectSuccessWithin`,
      });
    }
    return;
  }
  if (!job.create.ok) return;
  // A run tells the watchdog as it completes: after its last step ended, before it closed (seen 2.5 s
  // before the close visibility gives, on a loaded machine), so each success is known within [lo, hi].
  const successes = job.runs
    .filter((r) => r.status === 'completed' && r.closedAt)
    .map((r) => {
      const ends = h.steps.filter((x) => x.wf === r.workflowId && x.run === r.runId && x.ev === 'end');
      return { lo: Math.max(r.startedAt.getTime(), ...ends.map((x) => x.at)), hi: r.closedAt!.getTime() };
    })
    .sort((a, b) => a.lo - b.lo);
  // The watchdog reads the schedule before it raises `silent`, and ends quietly when it is gone
  // (docs/operations.md): removed with temporal-flow, deleted with the CLI, or a one-off that ran.
  const removes = [
    ...job.states.filter((s) => s.kind === 'remove'),
    ...(job.finalRemove ? [job.finalRemove] : []),
  ];
  const oneOffGone = job.model.kind === 'once' ? job.runs.map((r) => r.startedAt.getTime()) : [];
  const watchEnd = Math.min(...removes.map((r) => r.t0), ...oneOffGone, h.endAt ?? Infinity);
  const surelyEnded = Math.min(...removes.filter((r) => r.ok).map((r) => r.t1 + SLACK_MS));
  const silents = mine.filter((d) => d.event.kind === 'silent');
  for (const d of silents) {
    const x = Date.parse(d.event.at);
    tally.check('I6');
    // Surely within E before it: told after x - E and before x.
    const recent = successes.find((c) => c.lo > x - E + SLACK_MS && c.hi < x - SLACK_MS)?.lo;
    const own = d.event.lastSuccessAt ? x - Date.parse(d.event.lastSuccessAt) : Infinity;
    if (recent !== undefined || own < E - 500)
      v.push({
        invariant: 'I6',
        detail: `silent alert for job ${job.id} at ${d.event.at} (expectSuccessWithin ${E} ms, last success by its own account ${d.event.lastSuccessAt ?? 'none'}), though a run completed ${recent !== undefined ? x - recent : own} ms before it`,
      });
    if (x > surelyEnded)
      v.push({
        invariant: 'I6',
        detail: `silent alert for job ${job.id} at ${d.event.at}, after the job was removed`,
      });
    // The watchdog reads the schedule just before it raises (docs/operations.md): `schedule` says
    // whether it was paused, where the calls tell for sure.
    const state = scheduleStateAt(job, x);
    if (state && (d.event.schedule === 'paused' || d.event.schedule === 'active')) {
      tally.check('I6');
      if (d.event.schedule !== state)
        v.push({
          invariant: 'I6',
          detail: `silent alert for job ${job.id} at ${d.event.at} says its schedule was ${d.event.schedule}, but it was surely ${state} (${job.states.map((c) => c.kind).join(', ') || 'no pause or resume'})`,
        });
    }
  }
  // Stretches without a success: from the watch's start, each completed run and each edit (at the latest
  // each can have been), to the next (at the earliest).
  // A watchdog gone silent stays so (no second alert) until a run completes: an edit does not end it.
  const points = [
    { lo: job.create.t0, hi: job.create.t1 + SLACK_MS, success: true },
    ...successes.map((c) => ({ ...c, success: true })),
    ...[...job.edits.slice(1), ...job.reschedules].map((e) => ({
      lo: e.t0,
      hi: e.t1 + SLACK_MS,
      success: false,
    })),
  ].sort((p, q) => p.lo - q.lo);
  // The evaluator cannot raise before it first read the job (its listing of the schedules written).
  const firstRead = firstReadOf(job, h);
  // A success that ends a silent period is seen only through the listing of completed runs (no deadline
  // runs while the job is silent, docs/operations.md): the deadline after it is checked from then on.
  const endsSilence = (p: { lo: number; hi: number }) =>
    silents.some((d) => {
      const x = Date.parse(d.event.at);
      return x <= p.hi + SLACK_MS && !successes.some((c) => c.lo > x && c.hi < p.lo);
    });
  let a = -Infinity;
  let aLo = -Infinity;
  let successLo = -Infinity;
  points.forEach((p, i) => {
    a = Math.max(a, p.hi);
    aLo = Math.max(aLo, p.lo);
    if (p.success) successLo = Math.max(successLo, p.lo);
    const b = Math.min(points[i + 1]?.lo ?? Infinity, watchEnd);
    const due = Math.max(a + E, firstRead, p.success && endsSilence(p) ? p.hi + SUCCESS_SEEN_MS : -Infinity);
    if (
      b <= due + WATCHDOG_MARGIN_MS ||
      holdsWatchdog(h, a + E - 1_000, a + E + WATCHDOG_MARGIN_MS) ||
      holdsWatchdog(h, due - 1_000, due + WATCHDOG_MARGIN_MS)
    ) {
      if (b - a > E + WATCHDOG_MARGIN_MS && b <= due + WATCHDOG_MARGIN_MS)
        tally.excuse(
          'silent stretch ended before the evaluator could see it (its first read of the job, or the listing of completed runs after a silent period)',
        );
      return;
    }
    if (silents.some((d) => d.at >= successLo + E - 1_000 && d.at < aLo + E - 1_000)) return;
    tally.check('I6');
    if (!silents.some((d) => d.at >= aLo + E - 1_000 && d.at <= b + WATCHDOG_MARGIN_MS))
      v.push({
        invariant: 'I6',
        detail: `job ${job.id} had no completed run from ${iso(a)} to ${iso(b)} (expectSuccessWithin ${E} ms) but no silent alert arrived`,
      });
  });
  for (const d of mine.filter((x) => x.event.kind === 'recovered')) {
    tally.check('I6');
    const silent = silents.find((s) => s.event.lastSuccessAt === d.event.lastSuccessAt);
    const after =
      silent &&
      successes.some((c) => c.hi > Date.parse(silent.event.at) - SLACK_MS && c.lo < d.at + SLACK_MS);
    if (!after)
      v.push({
        invariant: 'I6',
        detail: `recovered alert for job ${job.id} (last success ${d.event.lastSuccessAt}) with no silent alert and completed run before it`,
      });
  }
  for (const s of silents) {
    const x = Date.parse(s.event.at);
    const c = successes.find((t) => t.lo > x + 1_000)?.hi;
    if (c === undefined || c + WATCHDOG_MARGIN_MS >= watchEnd || holdsWatchdog(h, c, c + WATCHDOG_MARGIN_MS))
      continue;
    tally.check('I6');
    if (!mine.some((d) => d.event.kind === 'recovered' && d.event.lastSuccessAt === s.event.lastSuccessAt))
      v.push({
        invariant: 'I6',
        detail: `job ${job.id} went silent at ${s.event.at} and completed a run at ${iso(c)}, but no recovered alert arrived`,
      });
  }
}

/** How long after its `at` a watchdog's read of the schedule may come (an activity, on a loaded machine). */
const READ_MS = 5_000;

/** Whether the schedule was surely paused or active at `x` (and during the read after it), else undefined. */
function scheduleStateAt(job: JobLife, x: number): 'paused' | 'active' | undefined {
  const calls = [
    ...job.states.filter((c) => c.kind !== 'remove'),
    ...(job.finalPause ? [{ ...job.finalPause, kind: 'pause' as const }] : []),
  ];
  const before = calls.filter((c) => c.t0 - SLACK_MS <= x + READ_MS);
  // A call in flight then, or one that failed (it may have landed at any time), leaves it open.
  if (before.some((c) => !c.ok || c.t1 + SLACK_MS >= x)) return undefined;
  return before.sort((a, b) => a.t0 - b.t0).pop()?.kind === 'pause' ? 'paused' : 'active';
}

/**
 * The misses the server counted (overlap, catch-up window), which the watchdog reads and posts as `missed`
 * alerts: never for a job without onMissed, and never more than the schedule's own counter for that reason
 * (read at rest). Not required: the watchdog reads the counts no more often than every 5 minutes.
 */
function checkCounted(job: JobLife, alerts: History['alerts'], v: Violation[], tally: Tally): void {
  for (const reason of ['overlap', 'catchup-window'] as const) {
    const mine = alerts.filter(
      (d) => d.event.jobId === job.id && d.event.kind === 'missed' && d.event.reason === reason,
    );
    if (mine.length === 0) continue;
    tally.check('I6');
    const counted = mine.reduce((n, d) => n + (d.event.count ?? d.event.nominalTimes?.length ?? 1), 0);
    if (!job.spec.onMissed)
      v.push({
        invariant: 'I6',
        detail: `missed (${reason}) alert for job ${job.id}, which has no onMissed`,
      });
    const counter =
      job.counters && (reason === 'overlap' ? job.counters.skippedOverlap : job.counters.missedCatchupWindow);
    if (counter !== undefined && counted > counter)
      v.push({
        invariant: 'I6',
        detail: `missed (${reason}) alerts for job ${job.id} count ${counted} occurrences, the schedule counted ${counter}`,
      });
  }
}

const iso = (ms: number) => new Date(ms).toISOString();

/*
 * The alert evaluator's promise for an occurrence the server never started (docs/operations.md, "How the
 * evaluator works", `reason: not-started`): Temporal retries a start that fails with a retryable error
 * (its database or history service down) until the occurrence's catch-up window ends, then drops it with
 * no run and no count; so the evaluator keeps the action times each read of the job lists (the next 10),
 * and raises `missed` (`not-started`, `nominalTimes: [that time]`) for a listed time with no run once its
 * catch-up window and 30 s more have passed, "within about 2 minutes of the time" with a grace's window;
 * not when the schedule was paused, resumed or updated between the read that listed it and the read after,
 * nor while starts wait in its buffer; when its counters grew instead, their own `missed` alert covers it
 * (a count, no times). The bounds the checker takes from that, each named by what it stands for:
 */
/** How long after the create's answer the evaluator's first read may come: its listing of the schedules
 * written every 15 s, a wave (5 s) and 10 s for visibility and the describe on a loaded machine. */
export const FIRST_READ_MS = 30_000;
/** How many action times a read lists (Temporal's describe: the next 10). */
export const LISTED_TIMES = 10;
/** After the catch-up window: the product's margin (30 s), a wave (5 s), the 15 s listing of started runs
 * it matches with, and WATCHDOG_MARGIN_MS for the confirming reads and the delivery. */
export const NOT_STARTED_AFTER_WINDOW_MS = 30_000 + 5_000 + 15_000 + WATCHDOG_MARGIN_MS;
/** The catch-up window temporal-flow sets for a job with a misfire grace: max(1 min, grace) (docs/scheduling.md). */
const catchupOf = (graceMs: number) => Math.max(60_000, graceMs);

/**
 * I6 for occurrences never started, both ways:
 * - required: a certain time of a job with `onMissed` that has no run gets a `missed` alert (any reason:
 *   one naming that time, or a count) by its bound, where the product promises one: the job has a catch-up
 *   window of its own (a misfire grace; without one Temporal's is a year), does not queue (a queueing job's
 *   starts wait in its buffer), is no one-off, and the time is surely among the 10 its first read listed
 *   (after the latest that read can have come, FIRST_READ_MS after the create, later by a server fault
 *   before it; and no later than the 10th time after the create); no call touched the job from its create
 *   to the bound (a pause, resume, remove, edit, reschedule, trigger or backfill: each makes the product
 *   read again or stand down), no alert worker was killed in that span (the evaluator's expectations are
 *   in its memory); the bound is the time + the catch-up window + NOT_STARTED_AFTER_WINDOW_MS, later by
 *   each server fault in it (its length and 30 s);
 * - caused: a `not-started` alert names times of a job with `onMissed` that its triggers had, while it was
 *   not surely inactive, and for which no run had started 2 s before the alert was raised.
 */
function checkNotStarted(
  job: JobLife,
  h: History,
  alerts: History['alerts'],
  v: Violation[],
  tally: Tally,
): void {
  const mine = alerts.filter((d) => d.event.jobId === job.id && d.event.kind === 'missed');
  const started = new Map<number, number>();
  for (const r of job.runs)
    if (r.scheduledAt) {
      const t = r.scheduledAt.getTime();
      started.set(t, Math.min(started.get(t) ?? Infinity, r.startedAt.getTime()));
    }
  const { times } = modelTimes(job, h);
  for (const d of mine.filter((x) => x.event.reason === 'not-started')) {
    tally.check('I6');
    const raised = Date.parse(d.event.at);
    const named = (d.event.nominalTimes ?? []).map((x) => Date.parse(x));
    const wrong = named.filter(
      (t) =>
        times.get(t) === undefined ||
        times.get(t) === 'inactive' ||
        (started.get(t) ?? Infinity) < raised - SLACK_MS,
    );
    if (!job.spec.onMissed || named.length === 0 || wrong.length > 0)
      v.push({
        invariant: 'I6',
        detail: `missed (not-started) alert for job ${job.id} at ${d.event.at} names ${named.map(iso).join(', ') || 'no time'}, ${!job.spec.onMissed ? 'a job without onMissed' : wrong.length > 0 ? `of which ${wrong.map((t) => `${iso(t)} (${started.has(t) ? `started ${iso(started.get(t)!)}` : (times.get(t) ?? 'not a time of its triggers')})`).join(', ')} had no such cause` : 'no time'}`,
      });
  }

  // Required: where the product promises an alert.
  if (!job.spec.onMissed || !job.create.ok || job.model.kind === 'once') return;
  const queueing = job.spec.maxInstances === 1 && !job.spec.coalesce;
  const grace = job.edits[0]?.graceMs ?? null;
  if (queueing || grace === null) return;
  const window = catchupOf(grace);
  const touches: Call[] = [
    ...job.states,
    ...job.edits.slice(1),
    ...job.reschedules,
    ...job.triggers,
    ...job.backfills,
    ...(job.finalPause ? [job.finalPause] : []),
    ...(job.finalRemove ? [job.finalRemove] : []),
  ];
  const firstRead = firstReadOf(job, h);
  const listed = nominalTimes(job.model, job.create.t0, job.create.t0 + 86_400_000).slice(0, LISTED_TIMES);
  const lastListed = listed[listed.length - 1] ?? -Infinity;
  let outside = 0;
  for (const [t, state] of times) {
    if (state !== 'active' || started.has(t)) continue;
    let bound = t + window + NOT_STARTED_AFTER_WINDOW_MS;
    for (const f of [...h.faults].sort((a, b) => a.t0 - b.t0))
      if (isServerFault(f) && f.t0 <= bound && f.t1 >= t) bound += f.t1 - f.t0 + 30_000;
    const promised =
      t > firstRead &&
      t <= lastListed &&
      bound <= (h.endAt ?? Infinity) &&
      !touches.some((c) => c.t0 - SLACK_MS <= bound && c.t1 + SLACK_MS >= job.create.t0) &&
      !h.faults.some((f) => f.kind === 'alert-worker-kill' && f.t0 <= bound && f.t1 >= job.create.t0);
    if (!promised) {
      outside++;
      continue;
    }
    tally.check('I6');
    const covered = mine.some(
      (d) =>
        d.at <= bound &&
        ((d.event.nominalTimes ?? []).some((x) => Date.parse(x) === t) ||
          (!d.event.nominalTimes?.length && d.at >= t)),
    );
    if (!covered)
      v.push({
        invariant: 'I6',
        detail: `job ${job.id} (onMissed, catch-up window ${window / 1000} s): the occurrence of ${iso(t)} never started and no missed alert arrived by ${iso(bound)} (the time + the window + ${NOT_STARTED_AFTER_WINDOW_MS / 1000} s; missed alerts of the job: ${mine.map((d) => `${d.event.reason ?? ''} ${iso(d.at)}`).join(', ') || 'none'})`,
      });
  }
  tally.excuse(
    "certain time without a run, of a job with onMissed and a catch-up window, outside the evaluator's promise (not surely among the times its read listed, or a call, an alert worker kill or the end of the run before its bound)",
    outside,
  );
}
