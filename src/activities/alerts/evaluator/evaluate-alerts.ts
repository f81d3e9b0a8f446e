import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import { CancelledFailure } from '@temporalio/common';
import { describeValue } from '../../../errors';
import { missingCodecError } from '../../../codec/errors';
import {
  alertCountsChangedQuery,
  alertEvaluatorWorkflowId,
  type AlertEvaluatorActivities,
} from '../../../workflows/alerts/evaluator-defs';
import { DEFAULT_WATCHDOG_TASK_QUEUE, watchdogWorkflowId } from '../../../workflows/alerts/watchdog-defs';
import type { AlertCheck, AlertEvaluation } from '../alert-activities';
import {
  checkByRuns,
  checkCounts,
  checkRecovered,
  checkSilent,
  expectFrom,
  sawSuccess,
  settleByRuns,
  stormVerifyAt,
  type CheckContext,
} from './evaluator-checks';
import {
  completedRunsAfter,
  eachLimited,
  listJobIds,
  readJob,
  runningWatchdogs,
  scheduledRunExists,
  startedRunsAfter,
  startedRunsOf,
  type JobReading,
} from './evaluator-sources';
import { editedBetween } from './evaluator-times';
import {
  COUNT_GRACE_MS,
  countsDueAfter,
  deadlineOf,
  newWatchedJob,
  type EvaluatorCarry,
  type WatchedJob,
} from './evaluator-state';
import { retireWatchdogs } from './retire-watchdogs';

/*
 * The evaluation activity of the shared alert evaluator. It holds what it knows in memory and rebuilds it
 * when it starts on a process that does not hold it (a new worker, a crash, a move to another worker):
 * every schedule of the queue read once, the runs completed over the longest dead-man window listed in one
 * query, and what its predecessor carried (open silent periods, counters reported: EvaluatorCarry, in its
 * heartbeats and its result). Then one wave every few seconds (5 s):
 * - every third wave, the schedules whose alerts were written since the last look (one listing on
 *   TflowAlertsAt), read again; every 6 hours all of them (a safety net: a write visibility showed late);
 *   every 10 minutes, the per-job watchdogs of an older release still running (retired);
 * - every third wave, the runs completed since the last look (one visibility query for the whole
 *   namespace; none when no job has a dead-man switch), and the runs started (none when no job has onMissed);
 * - per job, only what is due: the dead-man deadline (confirmed by a fresh read before `silent`), a run
 *   completed after a silent period (`recovered`), the counters after a nominal time or a trigger (`missed`),
 *   a listed action time past its catch-up window with no run (`missed`, `not-started`: evaluator-times.ts).
 * When many jobs are due at one nominal time (thousands of `0 3 * * *` jobs), a job whose passed times all
 * have a run is checked from the runs alone, and its read is owed, spread over the minutes after.
 * An alert is raised as a delivery workflow named by its cause, so a check made twice raises it once.
 */

/** What {@link createEvaluatorActivities} takes from its worker. */
export interface EvaluatorOptions {
  /** Called when a job's alerts cannot be evaluated (a failed read, lost targets) and when they can again. */
  onEvaluation?: (evaluation: AlertEvaluation) => void;
  /** Called after each due check of a job (its deadline, its counters), with how late it ran. */
  onCheck?: (check: AlertCheck) => void;
  /** Time between two waves. @default 5000 */
  waveMs?: number;
  /** How long one activity evaluates before it returns (its workflow then starts the next). @default 1 hour */
  runForMs?: number;
}

/** Overlap of two consecutive listings: visibility serves a write a moment after it lands. */
const VISIBILITY_LAG_MS = 60_000;
/**
 * Every schedule is listed again this often: a safety net only (every write through temporal-flow sets
 * TflowAlertsAt, which the listings of every third wave follow; a job deleted is found gone when read). A
 * listing of every schedule is the dearest read there is (10,000 schedules: 4.6 s of the dev server's CPU),
 * so it is rare: every 10 minutes it cost the server as much again as 10,000 schedules at rest.
 */
const FULL_LISTING_MS = 6 * 3600_000;
/** The per-job watchdogs of an older release still running are looked for this often. */
const WATCHDOGS_EVERY_MS = 10 * 60_000;
/** The listings (schedules written, runs completed) run every this many waves; due checks every wave. */
const LIST_EVERY_WAVES = 3;
/** The longest dead-man window read back at a rebuild. */
const MAX_REBUILD_WINDOW_MS = 8 * 24 * 3600_000;
/** Reads in flight at once (describes, visibility lookups): a busy server is not stormed. */
const READS_IN_FLIGHT = 8;
/** A job whose read failed is read again after this, doubling up to a minute. */
const RETRY_BASE_MS = 1_000;
const RETRY_MAX_MS = 60_000;
/** The `countsChanged` hints are read this often. */
const HINTS_EVERY_MS = 20_000;
/** An in-memory evaluator whose last wave is older than this is rebuilt rather than reused. */
const REUSE_WITHIN_MS = 120_000;
/** From this many counts checks due at once after a nominal time, they are answered from the runs seen. */
const STORM_AT = 2 * READS_IN_FLIGHT;
/**
 * The expected times carried to a successor: those passed, and those within this much time (a successor
 * starts within the heartbeat timeout, 30 s, and its first retries).
 */
const CARRY_EXPECTED_MS = 2 * 60_000;
/** At most this many jobs' expected times are carried (the earliest first): a heartbeat stays small. */
const MAX_CARRIED_JOBS = 500;
/** The carry is built again at most this often. */
const CARRY_REBUILD_MS = 1_000;
/**
 * A rebuild that failed (a listing refused: the server or its visibility away or overloaded) is tried again
 * by the same attempt after 1 s, doubling up to 30 s, heartbeating what its predecessor carried meanwhile. Not
 * left to the activity's retries: those count every attempt ended within the activity (a killed worker's
 * too), and a rebuild lists every schedule of the queue, which a short retry would repeat each time.
 */
const REBUILD_RETRY_BASE_MS = 1_000;
const REBUILD_RETRY_MAX_MS = 30_000;

/** Started runs are kept this long for matching (an older time is confirmed by a query of its own). */
const STARTED_KEPT_MS = 3600_000;

interface Evaluator {
  taskQueue: string;
  jobs: Map<string, WatchedJob>;
  /** Jobs of the queue whose read failed: attempts so far and when to read again. */
  failing: Map<string, { attempts: number; retryAt: number }>;
  runsSeenUntil: string;
  schedulesSeenUntil: number;
  fullListingAt: number;
  watchdogsAt: number;
  /** Waves since the last listings. */
  wavesSinceListing: number;
  lastWaveAt: number;
  /** The nominal times of the runs seen started, by job (epoch ms), and until when they were listed. */
  started: Map<string, number[]>;
  startedSeenUntil: string;
  /** The `countsChanged` hints acted on, by job, and when they were last read. */
  hintsDone: Map<string, string>;
  hintsReadAt: number;
  /** The query for the hints, while it is out. */
  hintsReading?: Promise<void>;
  /** Counters reported, for jobs whose counters are not zero (carried). */
  reported: Record<string, { missedCatchupWindow: number; overlapSkipped: number }>;
  /** The carry last built, and when (carryOf). */
  carryCache?: { at: number; carry: EvaluatorCarry };
  /** The activity that owns it: an older attempt still running on this process stops. */
  owner: object;
  /**
   * Jobs of the release before whose watchdog ran on this queue: their records name no queue, and they
   * are this evaluator's (retire-watchdogs.ts writes the queue into them).
   */
  legacy: Set<string>;
  /** Jobs whose targets an outside edit lost, as last read (said again each read, cleared once set again). */
  lost: Set<string>;
  /** While it rebuilds: what its predecessor carried (its heartbeats keep it, should it die meanwhile). */
  carried?: EvaluatorCarry;
}

/** The evaluators this process holds, by namespace and queue. */
const held = new Map<string, Evaluator>();

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What is handed on (heartbeats, the activity's result). Built at most once a second: the reads of a
 * listing heartbeat one by one, and a build walks every job (10,000 jobs read in one listing made it
 * quadratic).
 */
function carryOf(ev: Evaluator, waves?: number): EvaluatorCarry {
  const now = Date.now();
  if (!ev.carryCache || now - ev.carryCache.at >= CARRY_REBUILD_MS) {
    const silent: Record<string, string> = {};
    const soon: WatchedJob[] = [];
    const horizon = now + CARRY_EXPECTED_MS;
    for (const job of ev.jobs.values()) {
      if (job.silentSince) silent[job.jobId] = job.silentSince;
      if (job.config.onMissed && job.expected?.[0] !== undefined && job.expected[0] <= horizon)
        soon.push(job);
    }
    // The earliest first, so that a storm's carry stays small: the others' times passing while no
    // evaluator runs are not checked (docs/operations.md).
    soon.sort((a, b) => a.expected![0]! - b.expected![0]!);
    const expected: NonNullable<EvaluatorCarry['expected']> = {};
    for (const job of soon.slice(0, MAX_CARRIED_JOBS)) {
      expected[job.jobId] = {
        t: job.expected!.filter((t) => t <= horizon),
        ...(job.editToken !== undefined ? { k: job.editToken.toString() } : {}),
        ...(job.remainingActions !== undefined ? { r: job.remainingActions } : {}),
      };
    }
    const failing: Record<string, number> = {};
    for (const [jobId, f] of ev.failing) failing[jobId] = f.attempts;
    ev.carryCache = {
      at: now,
      carry: {
        runsSeenUntil: ev.runsSeenUntil,
        silent,
        reported: ev.reported,
        ...(soon.length > 0 ? { expected } : {}),
        failing,
      },
    };
  }
  const carry = { ...ev.carryCache.carry, runsSeenUntil: ev.runsSeenUntil };
  return waves !== undefined ? { ...carry, waves, waveAt: iso(ev.lastWaveAt), jobs: ev.jobs.size } : carry;
}

function belongsHere(reading: JobReading, taskQueue: string, legacy: Set<string>): boolean {
  if (reading.config === undefined) return false;
  if (reading.alertQueue === undefined && legacy.has(reading.jobId)) return true;
  return (reading.alertQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE) === taskQueue;
}

/** The evaluation activity of every alert worker. */
export function createEvaluatorActivities(opts: EvaluatorOptions = {}): AlertEvaluatorActivities {
  const waveMs = opts.waveMs ?? 5_000;
  const runForMs = opts.runForMs ?? 3_600_000;

  function failed(ev: Evaluator, jobId: string, err: unknown): void {
    const ctx = Context.current();
    const entry = ev.failing.get(jobId) ?? { attempts: 0, retryAt: 0 };
    entry.attempts++;
    entry.retryAt = Date.now() + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** (entry.attempts - 1));
    ev.failing.set(jobId, entry);
    const error =
      (missingCodecError(err) ?? (err instanceof Error ? err : undefined))?.message ?? describeValue(err);
    ctx.log.error(`the alerts of job "${jobId}" cannot be evaluated: ${error}`, {
      jobId,
      attempt: entry.attempts,
    });
    opts.onEvaluation?.({ jobId, outcome: 'failed', attempt: entry.attempts, error });
  }

  /** Reads a job; undefined when it is gone or not served here; throws what the read threw. */
  async function reread(ev: Evaluator, client: Client, jobId: string): Promise<JobReading | undefined> {
    const reading = await readJob(client, jobId);
    const wasFailing = ev.failing.get(jobId);
    if (wasFailing) {
      ev.failing.delete(jobId);
      opts.onEvaluation?.({ jobId, outcome: 'read', attempt: wasFailing.attempts + 1 });
    }
    if (!reading?.alertsLost && ev.lost.delete(jobId)) {
      opts.onEvaluation?.({ jobId, outcome: 'read', attempt: 1 });
    }
    if (reading?.alertsLost && belongsHere(reading, ev.taskQueue, ev.legacy)) {
      ev.lost.add(jobId);
      const error = `job "${jobId}" lost its alert targets ${reading.alertsLost.join(', ')} to an edit made outside temporal-flow: set them again (modifyJob, or apply its file)`;
      Context.current().log.error(error, { jobId });
      opts.onEvaluation?.({ jobId, outcome: 'failed', attempt: 1, error });
    }
    return reading && belongsHere(reading, ev.taskQueue, ev.legacy) ? reading : undefined;
  }

  /** Takes a reading into the evaluator: a new job, or what changed of a known one. */
  function adopt(ev: Evaluator, reading: JobReading, now: number, fresh: boolean): void {
    const known = ev.jobs.get(reading.jobId);
    // Its passed times still unaccounted for stay expected, unless the schedule was edited since.
    const pending =
      known && !editedBetween(known, reading) ? (known.expected ?? []).filter((t) => t <= now) : [];
    const job: WatchedJob =
      known ?? newWatchedJob(reading.jobId, reading.config!, reading.createdAt, reading.paused);
    job.config = reading.config!;
    job.createdAt = reading.createdAt;
    job.alertQueue = reading.alertQueue;
    if (reading.alertsAt !== undefined) job.alertsAt = reading.alertsAt;
    job.paused = reading.paused;
    job.nextActionAt = reading.nextActionAt;
    expectFrom(job, reading, pending);
    // A switch set again (or an id created again) after a silent period closes it without `recovered`.
    const since = job.config.deadManSince;
    if (job.silentSince && since && Date.parse(since) > Date.parse(job.silentSince))
      job.silentSince = undefined;
    if (!job.config.onMissed) job.countsDueAt = Infinity;
    else if (known && job.countsDueAt !== Infinity) {
      // Its times may have changed (a resume, a reschedule): never later than its next nominal time's read.
      job.countsDueAt = Math.min(job.countsDueAt, countsDueAfter(job, now));
    } else {
      // The counters' baseline: what was reported before; zero for a job created since the evaluator
      // last looked (its counters started at zero); else as they are now.
      const carried = ev.reported[job.jobId];
      const young = Date.parse(reading.createdAt) > now - VISIBILITY_LAG_MS - FULL_LISTING_MS;
      job.counts =
        carried ?? (young || fresh ? { missedCatchupWindow: 0, overlapSkipped: 0 } : reading.counts);
      if (job.counts.missedCatchupWindow > 0 || job.counts.overlapSkipped > 0)
        ev.reported[job.jobId] = job.counts;
      job.countsAt = iso(now);
      job.countsDueAt = Math.min(countsDueAfter(job, now), now + COUNT_GRACE_MS);
    }
    ev.jobs.set(job.jobId, job);
  }

  async function readAll(
    ev: Evaluator,
    client: Client,
    ids: string[],
    now: number,
    fresh: boolean,
  ): Promise<void> {
    await eachLimited(ids, READS_IN_FLIGHT, async (jobId) => {
      // Alive while it reads (a rebuild of thousands of jobs outlasts the heartbeat timeout); the SDK
      // sends at most one heartbeat per throttle interval. What was carried rides along untouched.
      Context.current().heartbeat(ev.carried ?? carryOf(ev));
      try {
        const reading = await reread(ev, client, jobId);
        if (reading) adopt(ev, reading, now, fresh);
        else ev.jobs.delete(jobId);
      } catch (err) {
        failed(ev, jobId, err);
      }
    });
  }

  async function rebuild(
    client: Client,
    taskQueue: string,
    carry: EvaluatorCarry | undefined,
  ): Promise<Evaluator> {
    // Only an evaluator that ran waves hands anything on (a first start's heartbeats carry nothing).
    if (carry?.runsSeenUntil === undefined) carry = undefined;
    const now = Date.now();
    const ev: Evaluator = {
      taskQueue,
      jobs: new Map(),
      failing: new Map(),
      runsSeenUntil: carry?.runsSeenUntil ?? iso(now),
      schedulesSeenUntil: now,
      fullListingAt: now,
      watchdogsAt: now,
      // The first wave lists (the runs started since the earliest time carried, before any is settled).
      wavesSinceListing: LIST_EVERY_WAVES - 1,
      lastWaveAt: now,
      started: new Map(),
      startedSeenUntil: iso(
        Math.min(now, ...Object.values(carry?.expected ?? {}).flatMap((e) => e.t.slice(0, 1))),
      ),
      hintsDone: new Map(),
      hintsReadAt: 0,
      reported: { ...(carry?.reported ?? {}) },
      owner: {},
      legacy: new Set(),
      lost: new Set(),
      carried: carry ?? {},
    };
    const watchdogs = await runningWatchdogs(client, taskQueue);
    for (const workflowId of watchdogs) ev.legacy.add(workflowId.slice(watchdogWorkflowId('').length));
    const known = new Map<string, object>([...ev.legacy].map((id) => [id, {}]));
    // Carried: a job not in `reported` had counters at zero when its predecessor last looked.
    const alive = () => Context.current().heartbeat(ev.carried ?? carryOf(ev));
    await readAll(
      ev,
      client,
      (await listJobIds(client, taskQueue, known, undefined, alive)).ids,
      now,
      carry !== undefined,
    );
    // The times its predecessor expected and had not accounted for (a time that passed between its last
    // heartbeat and this rebuild included), unless the schedule was edited since it listed them.
    for (const [jobId, carried] of Object.entries(carry?.expected ?? {})) {
      const job = ev.jobs.get(jobId);
      if (!job?.expected || job.catchupMs === undefined) continue;
      const before = {
        ...(carried.k !== undefined ? { editToken: BigInt(carried.k) } : {}),
        ...(carried.r !== undefined ? { remainingActions: carried.r } : {}),
      };
      if (editedBetween(before, job)) continue;
      const passed = carried.t.filter((t) => t <= now);
      job.expected = [...new Set([...passed, ...job.expected])].sort((a, b) => a - b);
    }
    for (const [jobId, since] of Object.entries(carry?.silent ?? {})) {
      const job = ev.jobs.get(jobId);
      if (job && !(job.config.deadManSince && Date.parse(job.config.deadManSince) > Date.parse(since))) {
        job.silentSince = since;
      }
    }
    let window = 0;
    for (const job of ev.jobs.values()) window = Math.max(window, job.config.expectSuccessWithinMs ?? 0);
    if (window > 0) {
      const runs = await completedRunsAfter(client, iso(now - Math.min(window, MAX_REBUILD_WINDOW_MS)));
      for (const [jobId, run] of runs) {
        const job = ev.jobs.get(jobId);
        if (job) sawSuccess(job, run);
      }
    }
    await retireWatchdogs(
      client,
      taskQueue,
      watchdogs,
      ev.jobs,
      carry === undefined,
      ev.failing,
      (jobId, err) => failed(ev, jobId, err),
    );
    delete ev.carried;
    return ev;
  }

  /** {@link rebuild}, tried again while it fails (a cancellation ends it). */
  async function rebuildRetried(
    client: Client,
    taskQueue: string,
    carry: EvaluatorCarry | undefined,
  ): Promise<Evaluator> {
    const ctx = Context.current();
    for (let tries = 1; ; tries++) {
      try {
        return await rebuild(client, taskQueue, carry);
      } catch (err) {
        if (err instanceof CancelledFailure) throw err;
        const delayMs = Math.min(REBUILD_RETRY_MAX_MS, REBUILD_RETRY_BASE_MS * 2 ** (tries - 1));
        const error =
          (missingCodecError(err) ?? (err instanceof Error ? err : undefined))?.message ?? describeValue(err);
        ctx.log.error(
          `the alert evaluator could not read its jobs (try ${tries}), trying again in ${delayMs} ms: ${error}`,
          { taskQueue, tries, delayMs },
        );
        // Alive meanwhile (the wait may outlast the heartbeat timeout), what was carried kept as it came.
        const until = Date.now() + delayMs;
        for (let left = delayMs; left > 0; left = until - Date.now()) {
          ctx.heartbeat(carry ?? {});
          await ctx.sleep(Math.min(waveMs, left));
        }
      }
    }
  }

  /** 1-2. What changed since the last listings: schedules written, runs completed. */
  async function listings(ev: Evaluator, client: Client, started: number): Promise<void> {
    // 1. Alerts written since the last look; every 6 hours, every schedule (deleted ones, older jobs).
    const full = started - ev.fullListingAt >= FULL_LISTING_MS;
    const { ids, listed } = full
      ? await listJobIds(client, ev.taskQueue, ev.jobs, undefined, () =>
          Context.current().heartbeat(carryOf(ev)),
        )
      : await listJobIds(client, ev.taskQueue, ev.jobs, new Date(ev.schedulesSeenUntil - VISIBILITY_LAG_MS));
    const toRead = new Set(ids);
    if (full) {
      // Known and no longer listed: deleted (read, it is found gone and dropped).
      for (const jobId of ev.jobs.keys()) if (!listed.has(jobId)) toRead.add(jobId);
      ev.fullListingAt = started;
    }
    // A watchdog started since (by a scheduler of the release before, during a rolling upgrade).
    const lookForWatchdogs = started - ev.watchdogsAt >= WATCHDOGS_EVERY_MS;
    const watchdogs = lookForWatchdogs ? await runningWatchdogs(client, ev.taskQueue) : [];
    if (lookForWatchdogs) ev.watchdogsAt = started;
    for (const workflowId of watchdogs) {
      const jobId = workflowId.slice(watchdogWorkflowId('').length);
      ev.legacy.add(jobId);
      toRead.add(jobId);
    }
    for (const [jobId, f] of ev.failing) if (f.retryAt <= started) toRead.add(jobId);
    await readAll(ev, client, [...toRead], started, false);
    ev.schedulesSeenUntil = started;
    if (watchdogs.length > 0) {
      await retireWatchdogs(client, ev.taskQueue, watchdogs, ev.jobs, false, ev.failing, (jobId, err) =>
        failed(ev, jobId, err),
      );
    }
    // What the jobs need of the runs, in one pass over them (no copy of the job list).
    let switched = false;
    let counted = false;
    for (const job of ev.jobs.values()) {
      switched ||= job.config.expectSuccessWithinMs !== undefined;
      counted ||= job.config.onMissed !== undefined;
      if (switched && counted) break;
    }
    // 2. Runs completed since the last look: only the dead-man switch needs them.
    if (switched) {
      const runs = await completedRunsAfter(client, iso(Date.parse(ev.runsSeenUntil) - VISIBILITY_LAG_MS));
      for (const [jobId, run] of runs) {
        const job = ev.jobs.get(jobId);
        if (job) sawSuccess(job, run);
      }
    }
    ev.runsSeenUntil = iso(started);
    // 3. Runs started since the last look: what the listed action times are matched with.
    if (counted) {
      const runs = await startedRunsAfter(client, iso(Date.parse(ev.startedSeenUntil) - VISIBILITY_LAG_MS));
      for (const [jobId, times] of runs) {
        const seen = ev.started.get(jobId) ?? [];
        ev.started.set(jobId, [...new Set([...seen, ...times])]);
      }
      for (const [jobId, times] of ev.started) {
        const kept = times.filter((t) => t > started - STARTED_KEPT_MS);
        if (kept.length > 0 && ev.jobs.has(jobId)) ev.started.set(jobId, kept);
        else ev.started.delete(jobId);
      }
    } else {
      ev.started.clear();
    }
    ev.startedSeenUntil = iso(started);
  }

  async function wave(ev: Evaluator, client: Client, workflowId: string): Promise<void> {
    const started = Date.now();
    // Due checks every wave (a deadline or a nominal time is acted on within a wave); the listings every
    // third wave, as what they bring (a job written, a run completed) can wait that long: a `silent` is
    // confirmed by fresh reads before it is raised.
    if (++ev.wavesSinceListing >= LIST_EVERY_WAVES) {
      ev.wavesSinceListing = 0;
      await listings(ev, client, started);
    }
    // 3. Triggers and backfills just sent: their overlap skips are counted at once. Read every 20 s (a
    // query costs the evaluator's worker a workflow task), well within the minute promised; not waited
    // for: a query goes to the worker that last ran the evaluator workflow (its sticky queue), and when that
    // worker is the one that just died (the usual case: the evaluator's own queries keep it there), it is
    // handed to another only after the SDK's sticky timeout (10 s). The answer is taken when it comes.
    readHints(ev, client, workflowId, started);
    await checkDue(ev, client, started);
  }

  /** Asks for the `countsChanged` hints when due, unless a query is out; applies them when they come. */
  function readHints(ev: Evaluator, client: Client, workflowId: string, started: number): void {
    if (ev.hintsReading || started - ev.hintsReadAt < HINTS_EVERY_MS) return;
    ev.hintsReadAt = started;
    const log = Context.current().log;
    ev.hintsReading = client.workflow
      .getHandle(workflowId)
      .query(alertCountsChangedQuery)
      .then(
        (hints) => {
          for (const [jobId, at] of Object.entries(hints)) {
            if (ev.hintsDone.get(jobId) === at) continue;
            ev.hintsDone.set(jobId, at);
            const job = ev.jobs.get(jobId);
            if (job?.config.onMissed) {
              job.countsDueAt = Math.min(job.countsDueAt, Date.parse(at) + COUNT_GRACE_MS);
              job.hinted = true;
            }
          }
        },
        (err: unknown) => {
          log.warn('could not read the triggers sent', { error: describeValue(err) });
        },
      )
      .finally(() => {
        ev.hintsReading = undefined;
      });
  }

  /** Reports a due check made (its lag: how long after it was due). */
  function reportCheck(jobId: string, due: AlertCheck['due'], dueAt: number): void {
    if (!opts.onCheck) return;
    const checkedAt = Date.now();
    opts.onCheck({
      jobId,
      due,
      dueAt: new Date(dueAt),
      checkedAt: new Date(checkedAt),
      lagMs: Math.max(0, checkedAt - dueAt),
    });
  }

  /**
   * 4a. Checks answered from the runs seen, without a read: a storm of counts checks due after one nominal
   * time (every passed time has a run: nothing missed; a read is owed, once the storm's runs have had
   * their time to start, spread over the minutes after: stormVerifyAt), and
   * passed times settled (every one has a run). Returns the jobs answered or left to wait.
   */
  function checkFromRuns(ev: Evaluator, started: number): Set<WatchedJob> {
    const answered = new Set<WatchedJob>();
    const runsOf = (jobId: string) => ev.started.get(jobId) ?? [];
    const nominalDue = [...ev.jobs.values()].filter(
      (job) =>
        !ev.failing.has(job.jobId) &&
        started >= job.countsDueAt &&
        !job.hinted &&
        job.verifyAt === undefined &&
        job.nextActionAt !== undefined &&
        job.nextActionAt <= started &&
        job.silentSince === undefined &&
        started < deadlineOf(job),
    );
    if (nominalDue.length >= STORM_AT) {
      for (const job of nominalDue) {
        const dueAt = job.countsDueAt;
        const answer = checkByRuns(job, runsOf(job.jobId), started);
        if (answer === 'read') continue;
        answered.add(job);
        if (answer === 'wait') continue;
        job.verifyAt = stormVerifyAt(started, nominalDue.length, Math.random());
        job.countsDueAt = Math.min(job.countsDueAt, job.verifyAt);
        reportCheck(job.jobId, ['counts'], dueAt);
      }
    }
    // Passed times waiting for a run: settled by a run seen, by a later time's run, or by the end of the
    // server's attempts (evaluator-times.ts). In memory; a job is read only for a time with no run.
    for (const job of ev.jobs.values()) {
      if (answered.has(job) || !(job.expected?.[0] !== undefined && job.expected[0] <= started)) continue;
      if (started >= job.countsDueAt || ev.failing.has(job.jobId)) continue;
      if (job.readAfter !== undefined && started < job.readAfter) continue;
      // A time with no run: the job is read now (checkCounts confirms with its own runs).
      if (!settleByRuns(job, runsOf(job.jobId), started)) job.countsDueAt = started;
    }
    return answered;
  }

  /** 4. What is due, job by job. */
  async function checkDue(ev: Evaluator, client: Client, started: number): Promise<void> {
    const ctx: CheckContext = {
      client,
      taskQueue: ev.taskQueue,
      reread: (id) => reread(ev, client, id),
      runsOf: (id) => ev.started.get(id) ?? [],
      confirmRuns: (id, from) => startedRunsOf(client, id, from),
      runExists: (id, runWorkflowId, nominal) => scheduledRunExists(client, id, runWorkflowId, nominal),
    };
    const answered = checkFromRuns(ev, started);
    const due = [...ev.jobs.values()].filter(
      (job) =>
        !answered.has(job) &&
        !ev.failing.has(job.jobId) &&
        (job.silentSince !== undefined || started >= deadlineOf(job) || started >= job.countsDueAt),
    );
    await eachLimited(due, READS_IN_FLIGHT, async (job) => {
      try {
        const now = Date.now();
        const deadline = deadlineOf(job);
        const countsDueAt = job.countsDueAt;
        await checkRecovered(ctx, job, now);
        let alive = true;
        if (now >= deadline) alive = await checkSilent(ctx, job, now);
        if (alive && now >= countsDueAt) alive = await checkCounts(ctx, job, now);
        if (now >= deadline || now >= countsDueAt) {
          const due: AlertCheck['due'] = [];
          if (now >= deadline) due.push('deadline');
          if (now >= countsDueAt) due.push('counts');
          reportCheck(
            job.jobId,
            due,
            Math.min(now >= deadline ? deadline : Infinity, now >= countsDueAt ? countsDueAt : Infinity),
          );
        }
        if (!alive) {
          ev.jobs.delete(job.jobId);
          return;
        }
        const c = job.counts;
        if (c && (c.missedCatchupWindow > 0 || c.overlapSkipped > 0)) ev.reported[job.jobId] = c;
      } catch (err) {
        failed(ev, job.jobId, err);
      }
    });
    for (const jobId of Object.keys(ev.reported)) if (!ev.jobs.has(jobId)) delete ev.reported[jobId];
  }

  return {
    async tflowEvaluateAlerts({ taskQueue, carry }) {
      const ctx = Context.current();
      const client = ctx.client;
      const key = `${ctx.info.workflowNamespace}/${taskQueue}`;
      const heartbeat = ctx.info.heartbeatDetails as EvaluatorCarry | undefined;
      let ev = held.get(key);
      let rebuildMs = 0;
      if (!ev || Date.now() - ev.lastWaveAt > REUSE_WITHIN_MS) {
        const rebuildAt = Date.now();
        ev = await rebuildRetried(client, taskQueue, heartbeat ?? carry);
        rebuildMs = Date.now() - rebuildAt;
        held.set(key, ev);
      }
      const owner = {};
      ev.owner = owner;
      const endAt = Date.now() + runForMs;
      let waves = 0;
      const workflowId = alertEvaluatorWorkflowId(taskQueue);
      while (Date.now() < endAt && ev.owner === owner) {
        try {
          await wave(ev, client, workflowId);
        } catch (err) {
          // A listing or a query that failed (overload, a server away): the next wave asks again.
          ctx.log.error('an alert evaluation wave failed', { error: describeValue(err) });
        }
        waves++;
        ev.lastWaveAt = Date.now();
        ctx.heartbeat({ ...carryOf(ev, waves), rebuildMs });
        await ctx.sleep(waveMs);
      }
      return { waves, carry: carryOf(ev) };
    },
  };
}
