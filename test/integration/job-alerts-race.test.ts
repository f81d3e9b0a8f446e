import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { AesGcmPayloadCodec, codecDataConverter } from '../../src/codec';
import { JobNotFoundError } from '../../src/client/errors';
import { findJobAlertProblems } from '../../src/client/jobs/job-alert-health';
import { findJobDisagreements } from '../../src/client/jobs/job-repair';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { decodeAlertsAttribute } from '../../src/client/jobs/store/job-alerts-attribute';
import type { JobAlerts } from '../../src/client/jobs/store/job-alerts';
import { pipeline } from '../../src/pipeline';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import { alertEvaluatorWorkflowId } from '../../src/workflows/alerts/evaluator-defs';
import { ALERTS_SEARCH_ATTRIBUTE } from '../../src/workflows/search-attributes';
import { waitForWaves } from '../helpers/alert-evaluator';
import { startAlertHook, type AlertHook } from '../helpers/alert-hook';
import { ClientProcesses } from '../helpers/client-processes';
import { FUZZ_SEED } from '../helpers/fuzz';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import type { AlertRaceProcess } from '../fixtures/alert-race-client-process';

/*
 * "A job is never silently missed, and never falsely paged" holds when many callers write at once: four
 * real client processes (test/fixtures/alert-race-client-process.ts, each its own seeded mix) create,
 * edit the alerts of (the dead-man switch added, changed and removed among them), pause, resume and
 * remove the same 100 alerting jobs at the same time; the 16 jobs a live worker runs every 3 s have run
 * a while with onMissed only before. Idle jobs (nobody runs them) get switches of 30-35 s. Once every
 * final deadline has passed and the evaluator has looked again: each idle job left with a switch paged
 * `silent` exactly once from the clock start its final settings name; nothing paged for any job after
 * its last write but its final settings (a removed job: nothing after its removal; a setting replaced
 * during the race may have run out before, rightly); no page before its deadline; no live job paged; no
 * cause paged twice. Each process logs its writes with their times. FUZZ_SEED replays a run's operations.
 */

const JOBS = 100;
/** Jobs 0..LIVE-1 run every 3 s on the test's worker, with a switch of 15-18 s when they have one. */
const LIVE = 16;
const PROCESSES = 4;
const OPERATIONS = 40;
const LANES = 5;
/** The idle jobs' switches: they run out after the race, or during it (under load) for settings replaced since. */
const IDLE_WITHIN: [string, string] = ['30s', '35s'];
const IDLE_WITHIN_MS = [30_000, 35_000];

const steps = {
  async work(x: number) {
    return x + 1;
  },
};

const codecKey = randomBytes(32);
const codecKeyId = `race-${randomBytes(4).toString('hex')}`;
const codec = new AesGcmPayloadCodec({ keys: { [codecKeyId]: codecKey } });
let hook: AlertHook;
let t: TestContext;
let client: Client;
let alertQueue: string;
let alertWorker: { worker: Worker; done: Promise<void> } | undefined;
const processes = new ClientProcesses('alert-race-client-process.ts');

beforeAll(async () => {
  hook = await startAlertHook();
  t = await connectTest('alert-race');
  client = new Client({
    connection: t.connection,
    namespace: t.namespace,
    dataConverter: codecDataConverter(codec),
  });
  alertQueue = `${t.taskQueue}-alerts`;
  await t.startWorker(steps, { codec });
  const worker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: alertQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    codec,
    // 10 s, not the 3 s of the fault tests: the evaluation heartbeats between waves only, and a wave of
    // this race (100 jobs written in the last minute, each read again) took over 3 s under a load of 40.
    evaluator: { waveMs: 1_000, heartbeatTimeoutMs: 10_000 },
  });
  alertWorker = { worker, done: worker.run() };
});
afterAll(async () => {
  await processes.killAll();
  if (alertWorker) {
    if (alertWorker.worker.getState() === 'RUNNING') alertWorker.worker.shutdown();
    await alertWorker.done;
  }
  await t?.close();
  await hook?.close();
});

/** What a job's schedule holds of its alerts: getJob's, the raw attribute's, and its clock's start. */
interface Observed {
  jobId: string;
  alerts?: JobAlerts;
  attributeAlerts?: unknown;
  /** Where its dead-man clock starts with no run: the later of the switch's setting and the schedule's create. */
  clockStart?: string;
}

async function observe(scheduler: PipelineScheduler, jobId: string): Promise<Observed | undefined> {
  let job;
  try {
    job = await scheduler.getJob(jobId);
  } catch (err) {
    if (err instanceof JobNotFoundError) return undefined;
    throw err;
  }
  if (job.foreign) throw new Error(`${jobId} reads as foreign`);
  const d = await client.schedule.getHandle(jobId).describe();
  const attribute = await decodeAlertsAttribute(
    client.options.loadedDataConverter,
    jobId,
    d.typedSearchAttributes.get(ALERTS_SEARCH_ATTRIBUTE),
  );
  const created = d.info.createdAt.toISOString();
  const since = attribute?.deadManSince;
  return {
    jobId,
    ...(job.alerts ? { alerts: job.alerts } : {}),
    ...(attribute?.alerts ? { attributeAlerts: attribute.alerts } : {}),
    ...(job.alerts?.onSilent && job.alerts.expectSuccessWithin
      ? { clockStart: since && Date.parse(since) > Date.parse(created) ? since : created }
      : {}),
  };
}

const isLive = (jobId: string) => Number(jobId.split('-').pop()) < LIVE;
const withinMs = (within: unknown) => IDLE_WITHIN_MS[IDLE_WITHIN.indexOf(String(within))];

describe('four client processes writing 100 alerting jobs at once', () => {
  it('leave each job paged exactly as its final settings say: once per switch left, never for a removed job, never twice', async () => {
    const t0 = Date.now();
    const phase = (what: string) =>
      console.info(`alert race: ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const prefix = t.uid('race').slice(0, 18);
    const ids = Array.from({ length: JOBS }, (_, n) => `${prefix}-${n}`);
    // The live jobs have run a while with onMissed only when the race begins: a switch the race adds to
    // one starts its clock then (a clock that started earlier would page at once).
    const scheduler = new PipelineScheduler(client, {
      taskQueue: t.taskQueue,
      watchdogTaskQueue: alertQueue,
    });
    const work = pipeline('alert-race-work', { steps: ['work'] }).step('work');
    await Promise.all(
      ids.slice(0, LIVE).map((jobId, n) =>
        scheduler.scheduleInterval(work, {
          jobId,
          every: '3s',
          args: [n],
          onMissed: { webhook: { url: `${hook.url}/missed` } },
        }),
      ),
    );
    const starting = Promise.all(
      Array.from({ length: PROCESSES }, (_, index) => {
        const cfg: AlertRaceProcess = {
          address: inject('temporalAddress'),
          namespace: t.namespace,
          liveQueue: t.taskQueue,
          idleQueue: `${t.taskQueue}-idle`,
          alertQueue,
          idleWithin: IDLE_WITHIN,
          prefix,
          jobs: JOBS,
          liveJobs: LIVE,
          codecKeyId,
          codecKey: codecKey.toString('hex'),
          hookUrl: hook.url,
          index,
          seed: FUZZ_SEED,
          operations: OPERATIONS,
          lanes: LANES,
        };
        return processes.start([JSON.stringify(cfg)]);
      }),
    );
    await waitFor(
      'every live job to have run 3 times',
      async () => {
        const counts = await Promise.all(
          ids
            .slice(0, LIVE)
            .map(async (id) => (await client.schedule.getHandle(id).describe()).info.numActionsTaken),
        );
        return counts.every((c) => c >= 3) ? true : undefined;
      },
      60_000,
    );
    const started = await starting;
    phase('live jobs warm, processes ready');
    const raceStart = Date.now();
    for (const p of started) p.go();
    const exits = await Promise.all(
      started.map((p) => new Promise<number | null>((resolve) => p.child.once('exit', resolve))),
    );
    const raceEnd = Date.now();
    const took = started
      .flatMap((p) => p.lines.filter((l) => l.startsWith('op ')))
      .map((l) => Number(l.split(' ')[5]) - Number(l.split(' ')[4]))
      .sort((a, b) => a - b);
    const pct = (q: number) => took[Math.min(took.length - 1, Math.floor(q * took.length))];
    phase(
      `race over (${raceEnd - raceStart} ms; a write took ${pct(0.5)} ms median, ${pct(0.95)} ms p95, ${took.at(-1)} ms max)`,
    );
    expect(exits).toEqual(started.map(() => 0));

    // Every operation ended as it may in a race: done, or refused for a job a racer removed or created.
    const ops = started.flatMap((p) => p.lines.filter((l) => l.startsWith('op ')));
    const outcome = (line: string) => line.split(' ').slice(6).join(' ');
    const refused = ops.filter((l) => outcome(l) !== 'ok');
    const allowed = /^(JobNotFoundError|JobAlreadyExistsError|JobConflictError): /;
    expect(refused.filter((l) => !allowed.test(outcome(l)))).toEqual([]);
    const landed = (kind: string) => ops.filter((l) => l.split(' ')[2] === kind && outcome(l) === 'ok');
    // The processes ran at the same time, each doing real writes of every kind.
    const goAt = started.map((p) => Number(p.lines.find((l) => l.startsWith('go '))!.split(' ')[1]));
    const doneAt = started.map((p) => Number(p.lines.find((l) => l.startsWith('done '))!.split(' ')[1]));
    expect(Math.max(...goAt)).toBeLessThan(Math.min(...doneAt));
    for (const kind of ['create', 'modify', 'pause', 'resume', 'remove']) {
      expect(landed(kind).length, kind).toBeGreaterThan(5);
    }
    // When each job was last written (the end of its last write that landed): after it, only the
    // settings it was left with may page (a setting replaced earlier may have run out before, rightly).
    const lastWrite = new Map<string, number>();
    for (const l of ops.filter((x) => outcome(x) === 'ok')) {
      const [, , , jobId, , end] = l.split(' ');
      lastWrite.set(jobId!, Math.max(lastWrite.get(jobId!) ?? 0, Number(end)));
    }

    const jobs = new Map(
      await Promise.all(ids.map(async (id) => [id, await observe(scheduler, id)] as const)),
    );
    const existing = [...jobs.values()].filter((j): j is Observed => j !== undefined);
    // getJob's alerts are the attribute's (the copy an outside edit keeps), decoded.
    expect(existing.filter((j) => JSON.stringify(j.alerts) !== JSON.stringify(j.attributeAlerts))).toEqual(
      [],
    );
    const paging = existing.filter((j) => !isLive(j.jobId) && j.clockStart !== undefined);
    const liveSwitched = existing.filter((j) => isLive(j.jobId) && j.clockStart !== undefined);

    phase('jobs read');
    // Every final deadline passes, then the evaluator looks again.
    const lastDeadline = Math.max(
      Date.now(),
      ...paging.map((j) => Date.parse(j.clockStart!) + withinMs(j.alerts!.expectSuccessWithin)!),
    );
    await waitFor(
      'every final idle deadline to pass',
      async () => (Date.now() > lastDeadline + 1_000 ? true : undefined),
      lastDeadline - Date.now() + 10_000,
    );
    await waitFor(
      'a silent alert of every idle job left with a switch',
      async () => (paging.every((j) => hook.postsOf(j.jobId, 'silent').length > 0) ? true : undefined),
      30_000,
    ).catch(() => undefined);
    phase('deadlines passed, pages in');
    await waitForWaves(client, alertQueue, 3);
    phase('3 more waves');

    const posted = hook.received.filter((e) => ids.includes(e.jobId));
    const pagesOf = (jobId: string) =>
      posted.filter((e) => e.jobId === jobId && (e.kind === 'silent' || e.kind === 'recovered'));
    const finalOf = new Map(paging.map((j) => [j.jobId, j.clockStart!]));
    // Each idle job left with a switch: one silent from the clock start its final settings name.
    expect(
      paging.map((j) => ({
        jobId: j.jobId,
        pages: pagesOf(j.jobId)
          .filter((e) => e.lastSuccessAt === j.clockStart)
          .map((e) => `${e.kind} since ${e.lastSuccessAt}`),
      })),
    ).toEqual(paging.map((j) => ({ jobId: j.jobId, pages: [`silent since ${j.clockStart}`] })));
    // Any other page (a setting replaced since, a job removed since) was raised before the job's last
    // write landed: an alert's `at` is when its check began, before the fresh read of the schedule that
    // must still show the setting it pages for (the release before paged a re-created id on its old clock
    // within a second of the create).
    const late = posted.filter(
      (e) =>
        (e.kind === 'silent' || e.kind === 'recovered') &&
        e.lastSuccessAt !== finalOf.get(e.jobId) &&
        Date.parse(e.at) > (lastWrite.get(e.jobId) ?? 0),
    );
    expect(late).toEqual([]);
    // Removed jobs: nothing after their removal (covered above: a removal is their last write).
    const removed = ids.filter((id) => !jobs.get(id));
    // Every page came due: no earlier than its switch after the clock start it names.
    const premature = posted.filter(
      (e) =>
        e.kind === 'silent' && Date.parse(e.at) - Date.parse(e.lastSuccessAt!) < e.expectSuccessWithinMs!,
    );
    expect(premature).toEqual([]);
    // Live jobs' runs succeed every 3 s: never silent; no job recovered (idle jobs never ran).
    expect(posted.filter((e) => (isLive(e.jobId) && e.kind === 'silent') || e.kind === 'recovered')).toEqual(
      [],
    );
    // No cause paged twice, no alert posted twice (a delivery is one workflow per cause); no missed or
    // late for idle jobs, which never came due (03:00 daily).
    const causes = posted
      .filter((e) => e.kind === 'silent')
      .map((e) => `${e.jobId} since ${e.lastSuccessAt}`);
    expect(causes.filter((x, i) => causes.indexOf(x) !== i)).toEqual([]);
    const texts = posted.map((e) => JSON.stringify(e));
    expect(texts.filter((x, i) => texts.indexOf(x) !== i)).toEqual([]);
    expect(posted.filter((e) => !isLive(e.jobId) && e.kind !== 'silent')).toEqual([]);

    // Nothing is owed to the jobs, and the evaluator reads them all.
    const evaluatorId = alertEvaluatorWorkflowId(alertQueue);
    expect(
      (await findJobDisagreements(client, { settleMs: 0 })).filter(
        (f) => f.taskQueue === alertQueue || f.jobId.startsWith(`${prefix}-`),
      ),
    ).toEqual([]);
    expect(
      (await findJobAlertProblems(client)).filter(
        (p) =>
          p.jobId === evaluatorId ||
          (p.jobId.startsWith(`${prefix}-`) && p.summary.includes(`evaluator ${evaluatorId} has`)),
      ),
    ).toEqual([]);

    console.info(
      `alert race (seed ${FUZZ_SEED}): ${ops.length} operations in ${raceEnd - raceStart} ms, ${ops.length - refused.length} done, ` +
        `${refused.length} refused; ${existing.length} jobs left, ${paging.length} idle with a switch (paged once each), ` +
        `${liveSwitched.length} live with a switch, ${removed.length} removed; ${posted.length} alerts received, ` +
        `${causes.length} silent (${causes.length - paging.length} of settings replaced or removed during the race)`,
    );
    expect(paging.length).toBeGreaterThan(5);
    expect(liveSwitched.length).toBeGreaterThan(0);
    expect(removed.length).toBeGreaterThan(5);

    await Promise.all(existing.map((j) => scheduler.removeJob(j.jobId)));
  }, 200_000);
});
