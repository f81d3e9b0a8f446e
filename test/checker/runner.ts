/*
 * The checker's runner: replays a plan (generator.ts) against a real server and real worker processes,
 * each operation at its offset and without waiting for the ones before (so calls race), through several
 * client connections; then brings the system to rest and reads back everything the invariants need.
 * What was asked (with the instants the call was sent and answered, and how it ended) and what was
 * observed (the steps' own log, the runs in visibility, the dead letters, the alerts received) go into a
 * {@link History}.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client, Connection, ScheduleNotFoundError } from '@temporalio/client';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { JobNotFoundError } from '../../src/client/errors';
import { TemporalFlowError } from '../../src/errors';
import type { JobDefinition } from '../../src/client/jobs/job-plan-types';
import type { JobSpec, Op, TimedOp } from './generator';
import { clockChanges } from '../helpers/dst-model';
import { cliBackfill, cliEdit, cliUpdate, type CliUpdateWrote } from './cli-edits';
import { runDoctor } from '../../src/setup/doctor';
import { killedVerb } from './client-kill';
import { readFailures } from './failure-evidence';
import { jobTrigger } from './job-triggers';
import { modelInForce } from './job-models';
import {
  CALL_DEADLINE_MS,
  MAX_LIVE_JOBS,
  QUIESCE_MS,
  READ_BACK_MS,
  type Call,
  type DirectRun,
  type History,
  type JobLife,
} from './history';
import {
  flakyPipeline,
  jobPipeline,
  keyPipeline,
  parentPipeline,
  STEP_NAMES,
  type StepRecord,
} from './pipelines';
import type { Delivery } from './receiver';
import type { CheckerWorkers, ServerControl } from './servers';

/** The job runs the steps' log names (a job's run ids are `<job id>-<nominal time>`), by job id. */
export function jobRunsInLog(jobs: readonly { id: string }[], steps: readonly StepRecord[]): Set<string> {
  const ids = new Set(jobs.map((j) => j.id));
  const out = new Set<string>();
  for (const s of steps) {
    const m = /^(.*)-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.exec(s.wf);
    if (m && ids.has(m[1]!)) out.add(s.wf);
  }
  return out;
}

const readStepsLog = (dir: string): StepRecord[] =>
  readFileSync(path.join(dir, 'steps.log'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as StepRecord);

export interface RunnerOptions {
  seed: number;
  durationMs: number;
  plan: TimedOp[];
  server: ServerControl;
  workers: CheckerWorkers;
  taskQueue: string;
  dir: string;
  alertUrl: string;
  alerts: Delivery[];
  /** The `temporal` CLI, for the plan's outside edits. */
  temporalCli: string;
  log: (line: string) => void;
}

/** How long a `tflow doctor --repair` may take before it counts as a failed call (see the `repair` op). */
const REPAIR_MS = 300_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const message = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/** A job's state calls as the report names them. */
const describeStates = (job: JobLife) =>
  job.states.map((s) => `${s.kind}${s.ok ? '' : ` failed: ${s.error ?? 'in flight'}`}`).join(', ') ||
  'no calls';

/**
 * Calls `f` (a call the server may refuse while it restarts) until it succeeds, for up to `ms`; an error
 * that `final` accepts ends the tries at once.
 */
async function persist<T>(
  what: string,
  ms: number,
  f: () => Promise<T>,
  final: (err: unknown) => boolean = () => false,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await f();
    } catch (err) {
      if (final(err) || Date.now() > deadline) throw new Error(`${what}: ${message(err)}`, { cause: err });
      await sleep(500);
    }
  }
}

export async function runPlan(opts: RunnerOptions): Promise<History> {
  const { server, workers, taskQueue, dir, log } = opts;
  const cli = { cli: opts.temporalCli, address: server.address, namespace: server.namespace };
  const connections: Connection[] = [];
  const clients: { scheduler: PipelineScheduler; runs: PipelineClient; client: Client }[] = [];
  for (let i = 0; i < 3; i++) {
    const connection = await Connection.connect({ address: server.address });
    connections.push(connection);
    const client = new Client({ connection, namespace: server.namespace });
    clients.push({
      client,
      scheduler: new PipelineScheduler(client, {
        taskQueue,
        steps: STEP_NAMES,
        watchdogTaskQueue: workers.watchdogTaskQueue,
      }),
      runs: new PipelineClient(client, { taskQueue, steps: STEP_NAMES }),
    });
  }
  let turn = 0;
  const anyClient = () => clients[turn++ % clients.length]!;
  const tag = `${opts.seed.toString(36).replace('-', 'm')}-${Date.now().toString(36)}`;

  const slowCalls: NonNullable<History['slowCalls']> = [];
  const h: History = {
    seed: opts.seed,
    durationMs: opts.durationMs,
    plan: opts.plan,
    calls: [],
    jobs: [],
    direct: [],
    faults: [],
    steps: [],
    killedAt: workers.killedAt,
    alerts: opts.alerts,
    letters: [],
    stillRunning: [],
    restAt: 0,
    createsLeftOut: 0,
    slowCalls,
  };
  class Hung extends Error {
    override name = 'Hung';
  }
  /** `f` with a deadline on every connection (f picks its client itself), and a timer in case. */
  const timely = <T>(f: () => Promise<T>): Promise<T> => {
    const deadline = Date.now() + CALL_DEADLINE_MS;
    const withDeadlines = connections.reduce<() => Promise<T>>(
      (g, connection) => () => connection.withDeadline(deadline, g),
      f,
    );
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Hung(`no answer ${CALL_DEADLINE_MS + 5_000} ms after the call, past its gRPC deadline`)),
        CALL_DEADLINE_MS + 5_000,
      );
    });
    return Promise.race([withDeadlines(), hung]).finally(() => clearTimeout(timer));
  };
  const call = async (kind: string, f: () => Promise<unknown>): Promise<Call> => {
    const t0 = Date.now();
    let c: Call;
    let hung = false;
    try {
      await timely(f);
      c = { t0, t1: Date.now(), ok: true };
    } catch (err) {
      hung = err instanceof Hung;
      c = {
        t0,
        t1: Date.now(),
        ok: false,
        error: message(err),
        ...(err instanceof TemporalFlowError ? { code: err.code } : {}),
      };
    }
    h.calls.push({ op: kind, call: c });
    if (c.t1 - t0 >= CALL_DEADLINE_MS) {
      slowCalls.push({ op: kind, t0, ms: c.t1 - t0, hung, ...(c.error ? { error: c.error } : {}) });
      log(
        `${kind} took ${c.t1 - t0} ms (${hung ? 'hung' : c.ok ? 'answered' : 'failed'}): ${c.error ?? 'ok'}`,
      );
    }
    return c;
  };
  const persistTimely = <T>(
    what: string,
    ms: number,
    f: () => Promise<T>,
    final?: (err: unknown) => boolean,
  ) => persist(what, ms, () => timely(f), final);
  const webhook = { webhook: { url: opts.alertUrl } };
  let serial = 0;
  const pending: Promise<unknown>[] = [];
  let serverFaulting = Promise.resolve();

  const ensureWorkers = async () => {
    while (workers.count < 2) await persist('start a worker', 120_000, () => workers.start());
    await persist('start the watchdog worker', 120_000, () => workers.ensureWatchdog());
  };

  // A job is gone once a remove succeeded, or found it gone after its create was answered; until then it
  // may exist and fire, whatever the calls said (a remove that failed under a fault may have landed, and
  // one sent while the create was in flight can find nothing that the create then writes; at seed
  // 20261204 a job the cap counted gone was still on the server 12 minutes later, which this explains).
  const gone = (j: JobLife) =>
    j.states.some(
      (s) =>
        s.kind === 'remove' &&
        (s.ok || (s.code === 'JOB_NOT_FOUND' && j.create.t1 > 0 && s.t0 > j.create.t1)),
    );
  let admission = Promise.resolve();
  /** Jobs with a remove call in flight (a deploy does not list them). */
  const removing = new Set<string>();
  /** A remove call of `id`, known as in flight while it is. */
  const removal = async (id: string, f: () => Promise<Call>): Promise<Call> => {
    removing.add(id);
    try {
      return await f();
    } finally {
      removing.delete(id);
    }
  };

  /**
   * Before the runner's first remove of a job: its counters and the first time it had not processed yet
   * (see JobLife.countersBeforeRemove), so that I1c can check a job that does not live to the rest.
   */
  const readCountersBeforeRemove = async (job: JobLife) => {
    if (job.countersBeforeRemove || !job.create.ok) return;
    const { client } = anyClient();
    const readAt = Date.now();
    await call('describe (before remove)', async () => {
      const d = await client.schedule.getHandle(job.id).describe();
      const next = d.info.nextActionTimes[0];
      job.createdAt ??= d.info.createdAt.getTime();
      // A one-off with no next action time has processed its one time (Temporal lists the times after the
      // last it processed, and none once a limited schedule's action is taken): judged up to the read.
      if (!next && !('runAt' in job.trigger)) return;
      job.countersBeforeRemove = {
        readAt,
        processedBefore: next ? next.getTime() : readAt,
        skippedOverlap: d.info.numActionsSkippedOverlap,
        missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
        buffered: Number(d.raw.info?.bufferSize ?? 0),
        bufferDropped: Number(d.raw.info?.bufferDropped ?? 0),
      };
    });
  };

  /**
   * Makes room for one more job: at most MAX_LIVE_JOBS exist at once, creates in flight included (a long
   * run would otherwise pile up hundreds, and a loaded server refuses removes). The oldest created goes
   * first, removed until it is found gone; when the server refuses for a minute the create is left out.
   * One create at a time makes room, so concurrent creates never count the same room twice.
   */
  async function admit(life: JobLife): Promise<boolean> {
    const turn = admission.then(async () => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const live = h.jobs.filter((j) => !gone(j));
        if (live.length < MAX_LIVE_JOBS) {
          h.jobs.push(life);
          return true;
        }
        if (Date.now() > deadline) return false;
        const oldest = live.find((j) => j.create.t1 > 0 && !deployingIds.has(j.id));
        if (!oldest) {
          await sleep(500);
          continue;
        }
        await readCountersBeforeRemove(oldest);
        const entry: JobLife['states'][number] = { t0: Date.now(), t1: 0, ok: false, kind: 'remove' };
        oldest.states.push(entry);
        Object.assign(
          entry,
          await removal(oldest.id, () => call('remove', () => anyClient().scheduler.removeJob(oldest.id))),
        );
        if (!gone(oldest)) await sleep(500);
      }
    });
    admission = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  /** A job's options but its trigger, as the plan's spec says them (`ms` given apart: a set's redeploy changes it). */
  const jobOptions = (spec: JobSpec, ms = spec.ms) => ({
    args: [{ ms }],
    maxInstances: spec.maxInstances,
    coalesce: spec.coalesce,
    ...(spec.graceS ? { misfireGraceTime: `${spec.graceS}s` as const } : {}),
    ...(spec.onMissed ? { onMissed: webhook } : {}),
    ...(spec.onLate ? { onLate: webhook, lateAfter: '2s' as const } : {}),
    ...(spec.silentS ? { expectSuccessWithin: `${spec.silentS}s` as const, onSilent: webhook } : {}),
  });
  const newLife = (id: string, spec: JobSpec): JobLife => ({
    id,
    spec,
    ...jobTrigger(spec, Date.now()),
    edits: [],
    reschedules: [],
    create: { t0: 0, t1: 0, ok: false },
    states: [],
    triggers: [],
    backfills: [],
    runs: [],
  });

  async function createJob(spec: JobSpec): Promise<void> {
    const id = `ck-${tag}-${++serial}`;
    const { scheduler } = anyClient();
    const common = { jobId: id, ...jobOptions(spec) };
    const life = newLife(id, spec);
    if (!(await admit(life))) {
      h.createsLeftOut++;
      log(`create ${id} left out: no room (the oldest job's removal refused for 60 s)`);
      return;
    }
    // A one-off's time counts from when its create is sent, not from a wait for room; a cron's day form
    // names the local day the create is sent on.
    Object.assign(life, jobTrigger(spec, Date.now()));
    const trigger = life.trigger;
    life.create = await call('create', () => {
      if ('runAt' in trigger) return scheduler.scheduleAt(jobPipeline, { ...common, runAt: trigger.runAt });
      if ('cron' in trigger) return scheduler.schedule(jobPipeline, { ...common, ...trigger });
      if ('calendar' in trigger) return scheduler.schedule(jobPipeline, { ...common, ...trigger });
      return scheduler.scheduleInterval(jobPipeline, { ...common, ...trigger });
    });
    life.edits.push({ ...life.create, graceMs: spec.graceS ? spec.graceS * 1000 : null, workMs: spec.ms });
    // A schedule starts processing its times at its own workflow's first task (Temporal's createTime),
    // which a loaded or restarting server may run seconds after the create call returned.
    if (life.create.ok)
      await call('describe', async () => {
        life.createdAt = (await scheduler.client.schedule.getHandle(id).describe()).info.createdAt.getTime();
      });
  }

  /**
   * The run's job set (jobs as code): per slot the job it holds and the trigger and `ms` the file last
   * gave it; every job the set ever created (a prune deletes those the file no longer lists).
   */
  const setName = `ck-${tag}`;
  const slots: (
    { life: JobLife; trigger: JobLife['trigger']; model: JobLife['model']; ms: number } | undefined
  )[] = [];
  const setLives: JobLife[] = [];
  let deploying = Promise.resolve();
  /** The set's jobs a deploy lists, until its apply answered: no remove is sent to them meanwhile. */
  const deployingIds = new Set<string>();

  /**
   * Writes the set as the op's file says it with `plan` then `apply` (one call for the model: nothing is
   * written unless the plan is applied, and a failed apply may have written part of it). The model takes
   * from a successful or failed apply what the file asks, whatever the plan said: a new slot's job is
   * created; a listed job that exists gets the file's trigger (a reschedule, when the model's last trigger
   * for it is another or was not surely written) and the file's args and grace (an edit, likewise); its
   * paused state is not in the file and stays; with `prune` each other job of the set is removed.
   */
  async function deploy(op: Extract<Op, { kind: 'deploy' }>): Promise<void> {
    const jobs: JobDefinition[] = [];
    const created: JobLife[] = [];
    const updated: { life: JobLife; trigger: JobLife['trigger']; model: JobLife['model']; ms: number }[] = [];
    // A slot's job is listed again only while nothing removes it: a removal that landed during the apply
    // would let the apply create it again, which the model (nothing runs past a removal) cannot follow.
    // So the slots to create are admitted first (admission removes the oldest jobs, which may be this
    // set's), and the set's jobs are kept from removal until the apply has answered.
    const exists = (i: number) => {
      const held = slots[i];
      return held && !gone(held.life) && !removing.has(held.life.id) ? held : undefined;
    };
    for (const [i, slot] of op.slots.entries()) {
      if (!slot || exists(i)) continue;
      const life = newLife(`ck-${tag}-s${i}-${++serial}`, slot.job);
      if (!(await admit(life))) {
        h.createsLeftOut++;
        log(`deploy: ${life.id} left out: no room (the oldest job's removal refused for 60 s)`);
        continue;
      }
      Object.assign(life, jobTrigger(slot.job, Date.now()));
      created.push(life);
      setLives.push(life);
      slots[i] = { life, trigger: life.trigger, model: life.model, ms: slot.job.ms };
    }
    for (const [i, slot] of op.slots.entries()) {
      const held = slot && exists(i);
      if (!slot || !held) continue;
      if (created.includes(held.life)) {
        jobs.push({
          jobId: held.life.id,
          pipeline: jobPipeline,
          ...jobOptions(slot.job),
          ...held.trigger,
        });
        continue;
      }
      const spec = held.life.spec;
      const next =
        slot.change === 'trigger' || slot.change === 'both'
          ? jobTrigger({ ...spec, trigger: slot.job.trigger }, Date.now())
          : { trigger: held.trigger, model: held.model };
      const ms = slot.change === 'ms' || slot.change === 'both' ? slot.job.ms : held.ms;
      updated.push({ life: held.life, ...next, ms });
      // A set's job is never a one-off (the generator draws none): its trigger is one a file takes.
      jobs.push({
        jobId: held.life.id,
        pipeline: jobPipeline,
        ...jobOptions(spec, ms),
        ...next.trigger,
      });
    }
    const listed = new Set(jobs.map((j) => j.jobId));
    const pruned = op.prune ? setLives.filter((l) => !listed.has(l.id) && !gone(l)) : [];
    for (const id of listed) deployingIds.add(id);
    // The jobs the prune is to remove are read first, as before any remove of the runner's (I1c).
    await Promise.all(pruned.map((life) => readCountersBeforeRemove(life)));
    const { scheduler } = anyClient();
    const c = await call(op.prune ? 'apply --prune' : 'apply', async () => {
      const plan = await scheduler.plan(
        { set: setName, pipelines: [jobPipeline], jobs },
        { prune: op.prune },
      );
      await scheduler.apply(plan);
    });
    for (const id of listed) deployingIds.delete(id);
    for (const life of created) {
      life.create = c;
      life.edits.push({
        ...c,
        graceMs: life.spec.graceS ? life.spec.graceS * 1000 : null,
        workMs: life.spec.ms,
      });
    }
    for (const u of updated) {
      const { life } = u;
      const lastTrigger = life.reschedules.at(-1) ?? { ok: life.create.ok, model: life.model };
      if (!lastTrigger.ok || JSON.stringify(lastTrigger.model) !== JSON.stringify(u.model))
        life.reschedules.push({ ...c, trigger: u.trigger, model: u.model });
      const graceMs = life.spec.graceS ? life.spec.graceS * 1000 : null;
      const lastEdit = life.edits.at(-1);
      if (!lastEdit || !lastEdit.ok || lastEdit.workMs !== u.ms || lastEdit.graceMs !== graceMs)
        life.edits.push({ ...c, graceMs, workMs: u.ms });
      const held = slots.find((s) => s?.life === life);
      if (held) Object.assign(held, { trigger: u.trigger, model: u.model, ms: u.ms });
    }
    for (const life of pruned) life.states.push({ ...c, kind: 'remove' });
    for (const life of created.filter(() => c.ok))
      await call('describe', async () => {
        life.createdAt = (
          await scheduler.client.schedule.getHandle(life.id).describe()
        ).info.createdAt.getTime();
      });
  }

  async function runOp(op: Op): Promise<void> {
    const jobOf = (ref: number) => (h.jobs.length === 0 ? undefined : h.jobs[ref % h.jobs.length]);
    switch (op.kind) {
      case 'create':
        return createJob(op.job);
      case 'modify': {
        const job = jobOf(op.job);
        if (!job) return;
        const c = await call('modify', () =>
          anyClient().scheduler.modifyJob(job.id, {
            args: [{ ms: op.ms }],
            note: `modified by op at ${new Date().toISOString()}`,
            misfireGraceTime: op.graceS === null ? undefined : `${op.graceS}s`,
          }),
        );
        job.edits.push({ ...c, graceMs: op.graceS === null ? null : op.graceS * 1000, workMs: op.ms });
        return;
      }
      case 'reschedule': {
        const job = jobOf(op.job);
        if (!job || 'runAt' in job.trigger || op.trigger.kind === 'once') return;
        const next = jobTrigger({ ...job.spec, trigger: op.trigger }, Date.now());
        const c = await call('reschedule', () => anyClient().scheduler.rescheduleJob(job.id, next.trigger));
        job.reschedules.push({ ...c, ...next });
        return;
      }
      case 'update-cli': {
        const job = jobOf(op.job);
        // Only a job surely under an interval or a UTC calendar: its input then names no zone or DST policy.
        if (
          !job ||
          job.create.t1 === 0 ||
          !job.reschedules.every((r) => r.ok) ||
          !['interval', 'calendar'].includes(modelInForce(job).kind)
        )
          return;
        const next = jobTrigger({ ...job.spec, trigger: op.trigger }, Date.now());
        const { client } = anyClient();
        let wrote: CliUpdateWrote | undefined;
        const c = await call('update (cli)', () =>
          cliUpdate(cli, client, job.id, op.trigger, CALL_DEADLINE_MS, (w) => (wrote = w)),
        );
        // Not run when its describe failed: then nothing was written.
        if (!wrote) return;
        // A full replace: the new trigger, and the input and paused state it read back, written again.
        job.reschedules.push({ ...c, ...next });
        job.edits.push({ ...c, graceMs: wrote.graceMs, workMs: wrote.workMs });
        job.states.push({ ...c, kind: wrote.paused ? 'pause' : 'resume', cli: true });
        return;
      }
      case 'deploy': {
        const turn = deploying.then(() => deploy(op));
        deploying = turn.catch(() => undefined);
        return turn;
      }
      case 'repair': {
        // Not a client call of the checker's: runDoctor makes its own connection and many calls (listings,
        // a describe per job, the repairs), each under the SDK's own deadline, so no one gRPC deadline
        // bounds it (seen at seed 2931 on a machine at load average 30: 65 s). It is recorded as a call
        // that fails if it takes over REPAIR_MS, never as one past its deadline (I4).
        const t0 = Date.now();
        let timer: NodeJS.Timeout | undefined;
        const c = await Promise.race([
          runDoctor({
            connection: { address: server.address },
            namespace: server.namespace,
            taskQueue,
            repair: true,
            watchdogTaskQueue: workers.watchdogTaskQueue,
          }).then(
            (): Call => ({ t0, t1: Date.now(), ok: true }),
            (err: unknown): Call => ({ t0, t1: Date.now(), ok: false, error: message(err) }),
          ),
          new Promise<Call>((resolve) => {
            timer = setTimeout(
              () => resolve({ t0, t1: Date.now(), ok: false, error: `no answer in ${REPAIR_MS} ms` }),
              REPAIR_MS,
            );
          }),
        ]).finally(() => clearTimeout(timer));
        h.calls.push({ op: 'doctor --repair', call: c });
        return;
      }
      case 'pause':
      case 'resume':
      case 'remove': {
        const job = jobOf(op.job);
        // Not while a deploy lists the job (see deploy).
        if (!job || (op.kind === 'remove' && deployingIds.has(job.id))) return;
        const { scheduler: s, client } = anyClient();
        const send = () =>
          call(op.cli ? `${op.kind} (cli)` : op.kind, () =>
            op.cli
              ? cliEdit(cli, client, op.kind, job.id, CALL_DEADLINE_MS)
              : op.kind === 'pause'
                ? s.pauseJob(job.id)
                : op.kind === 'resume'
                  ? s.resumeJob(job.id)
                  : s.removeJob(job.id),
          );
        if (op.kind === 'remove') await readCountersBeforeRemove(job);
        const c = op.kind === 'remove' ? await removal(job.id, send) : await send();
        job.states.push({ ...c, kind: op.kind, ...(op.cli ? { cli: true } : {}) });
        return;
      }
      case 'trigger': {
        const job = jobOf(op.job);
        if (!job) return;
        const { scheduler, client } = anyClient();
        job.triggers.push(
          await call(op.cli ? 'trigger (cli)' : 'trigger', () =>
            op.cli ? cliEdit(cli, client, 'trigger', job.id, CALL_DEADLINE_MS) : scheduler.triggerJob(job.id),
          ),
        );
        return;
      }
      case 'backfill': {
        const job = jobOf(op.job);
        if (!job || job.create.t0 === 0) return;
        // Disjoint windows wholly before the job existed (never fired), off whole seconds so that no fire
        // time sits on an edge: each backfilled time has exactly one outcome to find. A job with a DST
        // policy is backfilled around its zone's past clock changes, the latest first, which its policy
        // decides (3 to 10 minutes of window either side per unit of span).
        let end = Math.floor(job.create.t0 / 1000) * 1000 - 2_500 - job.backfills.length * 11_000;
        let from = end - op.spanS * 1000;
        const model = modelInForce(job);
        if (model.kind === 'dst') {
          const now = Math.floor(job.create.t0 / 1000);
          const change = clockChanges(model.zone, now - 400 * 86_400, now).reverse()[job.backfills.length];
          if (change === undefined) return;
          from = change * 1000 - op.spanS * 360_000 - 2_500;
          end = change * 1000 + op.spanS * 360_000 + 2_500;
        }
        // A DST policy is the product's: Temporal alone (the CLI) backfills a past DST day its own way.
        const viaCli = op.cli && model.kind !== 'dst';
        const { scheduler, client } = anyClient();
        const c = await call(viaCli ? 'backfill (cli)' : 'backfill', () =>
          viaCli
            ? cliBackfill(cli, client, job.id, from, end, CALL_DEADLINE_MS)
            : scheduler.backfillJob(job.id, { from: new Date(from), to: new Date(end) }),
        );
        job.backfills.push({ ...c, from, to: end });
        return;
      }
      case 'key-burst': {
        const key = `k${op.key}`;
        await Promise.all(
          Array.from({ length: op.n }, async () => {
            const workflowId = `ck-key-${tag}-${++serial}`;
            const run: DirectRun = { kind: 'key', workflowId, key, start: { t0: 0, t1: 0, ok: false } };
            h.direct.push(run);
            run.start = await call('key-burst', () =>
              anyClient().runs.start(keyPipeline, [{ ms: op.ms, key }], { workflowId }),
            );
          }),
        );
        return;
      }
      case 'parent': {
        const workflowId = `ck-parent-${tag}-${++serial}`;
        const run: DirectRun = { kind: 'parent', workflowId, start: { t0: 0, t1: 0, ok: false } };
        h.direct.push(run);
        run.start = await call('parent', () =>
          anyClient().runs.start(parentPipeline, [{ ms: op.ms }], { workflowId }),
        );
        h.direct.push({ kind: 'child', workflowId: `${workflowId}/kid`, start: run.start });
        if (!run.start.ok) return;
        await sleep(op.signalAfterMs);
        await call('signal', () =>
          persist('signal go', 60_000, () => anyClient().runs.signal(workflowId, 'go', { ms: op.ms })),
        );
        return;
      }
      case 'flaky': {
        const workflowId = `ck-flaky-${tag}-${++serial}`;
        const run: DirectRun = { kind: 'flaky', workflowId, start: { t0: 0, t1: 0, ok: false } };
        h.direct.push(run);
        const c = anyClient();
        run.start = await call('flaky', () => c.runs.start(flakyPipeline, [{ ms: 200 }], { workflowId }));
        if (!run.start.ok) return;
        // Fails at `charge`; then fixed and redriven (the letter must be filed before it can be read).
        await persistTimely('the flaky run to fail', 120_000, async () => {
          const d = await c.client.workflow.getHandle(workflowId).describe();
          if (d.status.name !== 'FAILED') throw new Error(`still ${d.status.name}`);
        }).catch(() => undefined);
        await sleep(op.redriveAfterMs);
        run.fixedAt = Date.now();
        writeFileSync(path.join(dir, `fixed-${workflowId}`), '');
        let redriven = '';
        const rc = await call('redrive', () =>
          persist('redrive', 60_000, async () => {
            redriven = (await anyClient().runs.redrive(workflowId)).workflowId;
          }),
        );
        if (redriven) h.direct.push({ kind: 'redrive', workflowId: redriven, start: rc, letter: workflowId });
        return;
      }
      case 'client-kill': {
        const job = jobOf(op.job);
        if (!job || job.create.t1 === 0) return;
        const args = op.verb === 'modify' ? [String(op.ms), String(op.graceS)] : [];
        const target = { ...cli, taskQueue, watchdogTaskQueue: workers.watchdogTaskQueue };
        const c = await killedVerb(target, op.verb, job.id, args, op.afterMs, CALL_DEADLINE_MS);
        h.calls.push({ op: `${op.verb} (client killed)`, call: c });
        if (!c.ok) h.faults.push({ kind: 'client-kill', t0: c.t0, t1: c.t1 });
        if (op.verb === 'modify')
          job.edits.push({ ...c, graceMs: op.graceS === null ? null : op.graceS * 1000, workMs: op.ms });
        else job.states.push({ ...c, kind: op.verb });
        return;
      }
      case 'alert-worker-kill': {
        const t0 = Date.now();
        const pid = await workers.killWatchdog();
        await sleep(op.downMs);
        await ensureWorkers();
        h.faults.push({ kind: op.kind, t0, t1: Date.now(), ...(pid ? { pid } : {}) });
        return;
      }
      case 'worker-kill': {
        const t0 = Date.now();
        const pid = await workers.killOne();
        await sleep(op.downMs);
        await ensureWorkers();
        h.faults.push({ kind: op.kind, t0, t1: Date.now(), ...(pid ? { pid } : {}) });
        return;
      }
      case 'temporal-kill':
      case 'postgres-stop': {
        if (!server.faults.includes(op.kind)) return;
        const t0 = Date.now();
        const done = serverFaulting.then(() => server.fault(op.kind, op.downMs));
        serverFaulting = done.catch(() => undefined);
        await done;
        h.faults.push({ kind: op.kind, t0, t1: Date.now() });
        log(`${op.kind}: down ${op.downMs} ms, back after ${Date.now() - t0} ms`);
        await ensureWorkers();
        return;
      }
    }
  }

  await ensureWorkers();
  const started = Date.now();
  let settled = 0;
  // A line a minute: a long run shows whether it keeps its cap and how the server answers.
  const progress = setInterval(() => {
    const live = h.jobs.filter((j) => !gone(j)).length;
    const failed = h.calls.filter((x) => !x.call.ok).length;
    log(
      `${Math.round((Date.now() - started) / 1000)} s: ${pending.length}/${opts.plan.length} operations sent, ${settled} done; ` +
        `${live} jobs live, ${h.createsLeftOut} creates left out; ${h.calls.length} calls (${failed} failed, ${slowCalls.length} past the deadline)`,
    );
  }, 60_000);
  for (const { at, op } of opts.plan) {
    await sleep(Math.max(0, started + at - Date.now()));
    pending.push(
      runOp(op)
        .catch((err: unknown) => log(`op ${op.kind} threw: ${message(err)}`))
        .finally(() => settled++),
    );
  }
  await Promise.all(pending);
  clearInterval(progress);
  h.restAt = Date.now();
  log(`plan done in ${h.restAt - started} ms; bringing the system to rest`);
  await ensureWorkers();

  // At rest: every job paused (its counters then stop moving), read, removed; the jobs side by side.
  const c = clients[0]!;
  // What the server holds, not only what the calls said: a create that failed under a fault may have
  // written its schedule, and a job left firing would keep starting runs after the rest.
  const listed = await persistTimely('list the jobs left', 60_000, async () => {
    const ids = new Set<string>();
    for await (const s of c.client.schedule.list())
      if (s.scheduleId.startsWith(`ck-${tag}-`)) ids.add(s.scheduleId);
    return ids;
  });
  const live = h.jobs.filter(
    (job) => listed.has(job.id) || !job.states.some((s) => s.kind === 'remove' && s.ok),
  );
  await Promise.all(
    live.map(async (job) => {
      // A job listed, or created and never removed, exists: paused whatever it takes. One whose create or
      // removal failed and that is not listed may or may not exist: tried until it is found gone. So may a
      // one-off, which deletes itself once its run has started (and may be listed a moment after). At
      // seed 20261204 a job created and never removed by the checker was "not found" for the 60 s of its
      // final pause; a one-off's own clean-up is the one remover the checker does not call.
      const oneOff = 'runAt' in job.trigger;
      const surely =
        !oneOff && (listed.has(job.id) || (job.create.ok && !job.states.some((s) => s.kind === 'remove')));
      job.finalPause = await call('pause', () =>
        persist(
          'final pause',
          60_000,
          () => c.scheduler.pauseJob(job.id),
          (err) => !surely && err instanceof JobNotFoundError,
        ),
      );
      if (!job.finalPause.ok)
        log(
          `rest: ${job.id} not paused (${job.finalPause.error}); created ${job.create.ok ? 'ok' : 'failed'}, ${describeStates(job)}`,
        );
    }),
  );
  log(`rest: ${live.filter((j) => j.finalPause?.ok).length} jobs paused (${Date.now() - h.restAt} ms)`);
  await sleep(3_000);
  await Promise.all(
    live
      .filter((job) => job.finalPause?.ok)
      .map(async (job) => {
        // Temporal's own counts of what it did not start, and the runs it still held back (buffered).
        const d = await persistTimely(
          'final describe',
          60_000,
          () => c.client.schedule.getHandle(job.id).describe(),
          (err) => err instanceof ScheduleNotFoundError,
        ).catch((err: unknown) => {
          if ((err as Error).cause instanceof ScheduleNotFoundError) return undefined;
          throw err;
        });
        if (!d) {
          job.vanishedAtRest = true;
          log(`rest: ${job.id} paused, then found gone when read (${describeStates(job)})`);
          return;
        }
        job.createdAt ??= d.info.createdAt.getTime();
        job.counters = {
          skippedOverlap: d.info.numActionsSkippedOverlap,
          missedCatchupWindow: d.info.numActionsMissedCatchupWindow,
          buffered: Number(d.raw.info?.bufferSize ?? 0),
          bufferDropped: Number(d.raw.info?.bufferDropped ?? 0),
        };
        job.finalRemove = await call('remove', () =>
          persist('final remove', 60_000, () => c.scheduler.removeJob(job.id)),
        );
        if (!job.finalRemove.ok) throw new Error(`final remove of ${job.id}: ${job.finalRemove.error}`);
      }),
  );
  log(`rest: counters read, jobs removed (${Date.now() - h.restAt} ms)`);
  // Every pipeline run of the queue must end by itself within QUIESCE_MS.
  const running = `TaskQueue = '${taskQueue}' AND WorkflowType = 'pipelineWorkflow' AND ExecutionStatus = 'Running'`;
  const deadline = Date.now() + QUIESCE_MS;
  for (;;) {
    const open: History['stillRunning'] = [];
    for await (const w of c.client.workflow.list({ query: running }))
      open.push({ workflowId: w.workflowId, type: w.type, startedAt: w.startTime.getTime() });
    if (open.length === 0 || Date.now() > deadline) {
      h.stillRunning = open;
      break;
    }
    await sleep(2_000);
  }
  log(`at rest: ${h.stillRunning.length} pipeline runs still running after ${QUIESCE_MS / 1000} s`);

  // Read back: visibility settles within seconds of the last close, or minutes behind a loaded server's
  // backlog. Read until two reads agree and list every run the steps' log shows (what is listed cannot be
  // checked against what is not), or give up after READ_BACK_MS and say which runs were never listed.
  const readRuns = async () => Promise.all(h.jobs.map((j) => c.runs.listRuns({ jobId: j.id, limit: 1_000 })));
  const ran = jobRunsInLog(h.jobs, readStepsLog(dir));
  const readDeadline = Date.now() + READ_BACK_MS;
  let before = '';
  for (;;) {
    const now = await readRuns();
    now.forEach((runs, i) => (h.jobs[i]!.runs = runs));
    const listed = new Set(now.flat().map((r) => r.workflowId));
    const unread = [...ran].filter((id) => !listed.has(id));
    const text = JSON.stringify(now);
    if (text === before && unread.length === 0) break;
    if (Date.now() > readDeadline) {
      h.unread = unread;
      break;
    }
    before = text;
    await sleep(2_000);
  }
  log(`rest: job runs read (${Date.now() - h.restAt} ms)`);
  for (const run of h.direct) {
    if (!run.start.ok) continue;
    try {
      const d = await c.client.workflow.getHandle(run.workflowId).describe();
      run.status = d.status.name;
      if (d.closeTime) run.closedAt = d.closeTime.getTime();
    } catch (err) {
      run.status = `unknown (${message(err)})`;
    }
  }
  await readFailures(c.client, h, dir);
  h.letters = (await c.runs.listDeadLetters({ pipeline: flakyPipeline.spec.name, limit: 1_000 })).map(
    (l) => ({
      workflowId: l.workflowId,
      lastWorkflowId: l.lastWorkflowId,
      failures: l.failures,
    }),
  );
  log(`rest: direct runs and letters read (${Date.now() - h.restAt} ms)`);
  // Alerts are delivered by the runs before they end; a moment for the last posts in flight.
  await sleep(2_000);
  h.steps = readStepsLog(dir);
  h.endAt = Date.now();
  for (const connection of connections) await connection.close();
  return h;
}
