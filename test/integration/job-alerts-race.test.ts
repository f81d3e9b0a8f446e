import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, WorkflowNotFoundError } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { AesGcmPayloadCodec, codecDataConverter } from '../../src/codec';
import { JobNotFoundError } from '../../src/client/errors';
import { findJobAlertProblems } from '../../src/client/jobs/job-alert-health';
import { findJobDisagreements } from '../../src/client/jobs/job-repair';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { decodeAlertsAttribute } from '../../src/client/jobs/store/job-alerts-attribute';
import { compileAlerts, type JobAlerts } from '../../src/client/jobs/store/job-alerts';
import { pipeline } from '../../src/pipeline';
import { createWatchdogWorker } from '../../src/worker/watchdog-worker';
import type { JobAlertEvent } from '../../src/workflows/alert-types';
import { watchdogStateQuery, watchdogWorkflowId } from '../../src/workflows/alerts/watchdog-defs';
import { ALERTS_SEARCH_ATTRIBUTE } from '../../src/workflows/search-attributes';
import { ClientProcesses } from '../helpers/client-processes';
import { FUZZ_SEED } from '../helpers/fuzz';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import type { AlertRaceProcess } from '../fixtures/alert-race-client-process';

/*
 * "A job is never silently missed" holds when many callers write at once: four real client processes
 * (test/fixtures/alert-race-client-process.ts, each its own seeded mix) create, edit the alerts of
 * (the dead-man switch added and removed among them), pause, resume and remove the same 100 alerting jobs
 * at the same time; the 16 jobs a live worker runs every 3 s have run a while with onMissed only before.
 * Afterwards every job's two copies of its alerts agree, each job has exactly the
 * watchdog its alerts ask for, watching what they say, the doctor's checks find nothing, and no job
 * whose runs succeed was paged as silent. FUZZ_SEED replays a run's operations.
 */

const JOBS = 100;
/** Jobs 0..LIVE-1 run every 3 s on the test's worker, with a switch of 15-18 s when they have one. */
const LIVE = 16;
const PROCESSES = 4;
const OPERATIONS = 75;
const LANES = 5;

const received: JobAlertEvent[] = [];
let hook: Server;
let hookUrl: string;

const steps = {
  async work(x: number) {
    return x + 1;
  },
};

const codecKey = randomBytes(32);
const codec = new AesGcmPayloadCodec({ keys: { race: codecKey } });
let t: TestContext;
let client: Client;
let watchdogQueue: string;
let watchdog: { worker: Worker; done: Promise<void> } | undefined;
const processes = new ClientProcesses('alert-race-client-process.ts');

beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      received.push(JSON.parse(body) as JobAlertEvent);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
  t = await connectTest('alert-race');
  client = new Client({
    connection: t.connection,
    namespace: t.namespace,
    dataConverter: codecDataConverter(codec),
  });
  watchdogQueue = `${t.taskQueue}-watchdog`;
  await t.startWorker(steps, { codec });
  const worker = await createWatchdogWorker({
    connection: t.nativeConnection,
    namespace: t.namespace,
    taskQueue: watchdogQueue,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    codec,
  });
  watchdog = { worker, done: worker.run() };
});
afterAll(async () => {
  await processes.killAll();
  if (watchdog) {
    if (watchdog.worker.getState() === 'RUNNING') watchdog.worker.shutdown();
    await watchdog.done;
  }
  await t?.close();
  await new Promise((resolve) => hook?.close(resolve));
});

/** What the job's schedule holds of its alerts, read twice: the job as getJob reads it, and the raw attribute. */
interface Observed {
  jobId: string;
  alerts?: JobAlerts;
  attribute?: Awaited<ReturnType<typeof decodeAlertsAttribute>>;
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
  return { jobId, ...(job.alerts ? { alerts: job.alerts } : {}), attribute };
}

/**
 * What is wrong with one job's watchdog now, or undefined: a job whose alerts need one has exactly one
 * running, whose queried configuration is the job's (its alerts compiled, with the switch's start from
 * the attribute); any other id (no such alerts, or no job) has none running.
 */
async function watchdogProblem(jobId: string, job: Observed | undefined): Promise<string | undefined> {
  const handle = client.workflow.getHandle(watchdogWorkflowId(jobId));
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    status = 'NONE';
  }
  const compiled = job?.alerts ? compileAlerts(job.alerts).watchdog : undefined;
  if (!compiled) return status === 'RUNNING' ? `${jobId}: a watchdog runs, none is needed` : undefined;
  if (status !== 'RUNNING') return `${jobId}: needs a watchdog, its is ${status}`;
  const since = job?.attribute?.deadManSince;
  const expected = compiled.onSilent && since ? { ...compiled, deadManSince: since } : compiled;
  const state = await handle.query(watchdogStateQuery);
  if (JSON.stringify(state.config) !== JSON.stringify(expected)) {
    return `${jobId}: the watchdog watches ${JSON.stringify(state.config)}, the job says ${JSON.stringify(expected)}`;
  }
  // A live job's switch has lived past its first deadline, its runs' successes moving the clock on.
  const firstDeadline =
    since && compiled.expectSuccessWithinMs && Date.parse(since) + compiled.expectSuccessWithinMs;
  if (isLive(jobId) && firstDeadline && !(Date.parse(state.lastSuccessAt) > firstDeadline)) {
    return `${jobId}: no success reported after ${new Date(firstDeadline).toISOString()} yet (last ${state.lastSuccessAt})`;
  }
  return undefined;
}

const isLive = (jobId: string) => Number(jobId.split('-').pop()) < LIVE;
const isText = (p: string | undefined): p is string => p !== undefined;

describe('four client processes writing 100 alerting jobs at once', () => {
  it("leave every job's alerts, attribute and watchdog in agreement, and page no job whose runs succeed", async () => {
    const prefix = t.uid('race').slice(0, 18);
    const ids = Array.from({ length: JOBS }, (_, n) => `${prefix}-${n}`);
    // The live jobs have run a while with onMissed only when the race begins: a switch the race adds to
    // one is younger than its watchdog by more than its length, so a clock that did not start at the
    // switch would page at once.
    const scheduler = new PipelineScheduler(client, {
      taskQueue: t.taskQueue,
      watchdogTaskQueue: watchdogQueue,
    });
    const work = pipeline('alert-race-work', { steps: ['work'] }).step('work');
    await Promise.all(
      ids.slice(0, LIVE).map((jobId, n) =>
        scheduler.scheduleInterval(work, {
          jobId,
          every: '3s',
          args: [n],
          onMissed: { webhook: { url: `${hookUrl}/missed` } },
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
          watchdogQueue,
          prefix,
          jobs: JOBS,
          liveJobs: LIVE,
          codecKey: codecKey.toString('hex'),
          hookUrl,
          index,
          seed: FUZZ_SEED,
          operations: OPERATIONS,
          lanes: LANES,
        };
        return processes.start([JSON.stringify(cfg)]);
      }),
    );
    await waitFor(
      'every live job to have run 5 times',
      async () => {
        const counts = await Promise.all(
          ids
            .slice(0, LIVE)
            .map(async (id) => (await client.schedule.getHandle(id).describe()).info.numActionsTaken),
        );
        return counts.every((c) => c >= 5) ? true : undefined;
      },
      60_000,
    );
    const started = await starting;
    const raceStart = Date.now();
    for (const p of started) p.go();
    const exits = await Promise.all(
      started.map((p) => new Promise<number | null>((resolve) => p.child.once('exit', resolve))),
    );
    const raceMs = Date.now() - raceStart;
    expect(exits).toEqual(started.map(() => 0));

    // Every operation ended as it may in a race: done, or refused for a job a racer removed or created.
    const ops = started.flatMap((p) => p.lines.filter((l) => l.startsWith('op ')));
    const outcome = (line: string) => line.split(' ').slice(4).join(' ');
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

    const read = async () =>
      new Map(await Promise.all(ids.map(async (id) => [id, await observe(scheduler, id)] as const)));
    // getJob's alerts are the attribute's, decoded, and the watchdogs watch what the jobs say; a
    // describe's search attributes can lag the last write by a moment, and its signal to the watchdog
    // may still be on its way: they settle, and the live jobs' switches outlive their first deadline.
    let jobs = new Map<string, Observed | undefined>();
    let problems: string[] = [];
    await waitFor(
      'every job and watchdog to agree',
      async () => {
        jobs = await read();
        problems = [];
        for (const job of jobs.values()) {
          if (job && JSON.stringify(job.attribute?.alerts) !== JSON.stringify(job.alerts)) {
            problems.push(
              `${job.jobId}: getJob's alerts ${JSON.stringify(job.alerts)}, the attribute's ${JSON.stringify(job.attribute?.alerts)}`,
            );
          }
        }
        problems.push(
          ...(await Promise.all(ids.map((id) => watchdogProblem(id, jobs.get(id))))).filter(isText),
        );
        return problems.length === 0 ? true : undefined;
      },
      60_000,
    ).catch(() => undefined);
    expect(problems).toEqual([]);
    // Nothing moved while they settled: what they were compared with is still what the jobs say.
    expect(await read()).toEqual(jobs);
    const existing = [...jobs.values()].filter((j): j is Observed => j !== undefined);

    const ours = (found: { jobId: string }[]) => found.filter((f) => f.jobId.startsWith(`${prefix}-`));
    expect(
      ours(await findJobDisagreements(client, { settleMs: 0, watchdogTaskQueue: watchdogQueue })),
    ).toEqual([]);
    expect(ours(await findJobAlertProblems(client))).toEqual([]);

    const withSwitch = existing.filter((j) => j.alerts?.onSilent !== undefined);
    const liveSwitched = withSwitch.filter((j) => isLive(j.jobId));
    const pages = received.filter(
      (e) => ids.includes(e.jobId) && (e.kind === 'silent' || e.kind === 'recovered'),
    );
    console.info(
      `alert race (seed ${FUZZ_SEED}): ${ops.length} operations in ${raceMs} ms, ${ops.length - refused.length} done, ` +
        `${refused.length} refused; ${existing.length} jobs left, ${withSwitch.length} with a dead-man switch ` +
        `(${liveSwitched.length} live); ${received.filter((e) => ids.includes(e.jobId)).length} alerts received`,
    );
    // Live jobs' runs succeed every 3 s (each switch outlived its first deadline) and idle jobs' switches
    // are hours long: no dead-man page is due.
    expect(pages).toEqual([]);
    expect(liveSwitched.length).toBeGreaterThan(0);

    await Promise.all(existing.map((j) => scheduler.removeJob(j.jobId)));
  }, 150_000);
});
