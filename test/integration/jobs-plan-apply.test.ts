import { AlertEvaluatorStartError } from '../../src/client/errors';
import { execFile, spawn } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ScheduleDescription } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { defineJobs } from '../../src/client/jobs/job-set';
import { JobSetError, PlanBlockedError, PlanStaleError } from '../../src/client/jobs/job-plan-errors';
import type { JobDefinition, JobPlan } from '../../src/client/jobs/job-plan-types';
import { PIPELINE_WORKFLOW_TYPE } from '../../src/workflows/run-types';
import { describeScheduleIfAny } from '../../src/client/describe-schedule';
import { finishedUpdate, updateJob } from '../../src/client/jobs/store';
import { SET_SEARCH_ATTRIBUTE } from '../../src/workflows/search-attributes';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { raceJobs } from '../fixtures/race-jobs';

let t: TestContext;
let scheduler: PipelineScheduler;
const etl = pipeline('plan-etl').step('extract').step('load');
const health = pipeline('plan-health').step('ping');

beforeAll(async () => {
  t = await connectTest('plan');
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
});
afterAll(async () => t?.close());

/** A jobs file of set `set` with these jobs (pipelines by name). */
const file = (set: string, jobs: JobDefinition[]) => defineJobs({ set, pipelines: [etl, health], jobs });
const actions = (plan: JobPlan) => Object.fromEntries(plan.jobs.map((j) => [j.jobId, j.action]));
const token = (d: ScheduleDescription | undefined) => Buffer.from(d?.raw.conflictToken ?? []).toString('hex');

describe('plan and apply', () => {
  it('creates, then re-plans empty; an edit is one ~ with the right fields; equivalent forms are no change', async () => {
    const set = t.uid('set');
    const [a, b] = [t.uid('etl'), t.uid('health')];
    const jobs = (cron: string, grace: string, args: unknown[]): JobDefinition[] => [
      {
        jobId: a,
        pipeline: 'plan-etl',
        cron,
        timezone: 'Europe/Paris',
        args,
        misfireGraceTime: grace,
        paused: true,
      },
      { jobId: b, pipeline: 'plan-health', every: '30m', note: 'health', paused: true },
    ];
    const first = await scheduler.plan(file(set, jobs('0 2 * * *', '10m', [{ region: 'eu', n: 1 }])));
    expect(actions(first)).toEqual({ [a]: 'create', [b]: 'create' });
    expect(first.hasChanges).toBe(true);
    expect(await scheduler.apply(first)).toMatchObject({ created: [a, b].sort() });

    const again = await scheduler.plan(file(set, jobs('0 2 * * *', '10m', [{ region: 'eu', n: 1 }])));
    expect(again.hasChanges).toBe(false);
    expect(actions(again)).toEqual({ [a]: 'unchanged', [b]: 'unchanged' });
    // Applying the same file twice changes nothing the second time.
    const before = token(await describeScheduleIfAny(t.client, a));
    expect(await scheduler.apply(again)).toMatchObject({ created: [], updated: [], deleted: [] });
    expect(token(await describeScheduleIfAny(t.client, a))).toBe(before);

    // Equivalent forms: a calendar for the cron, 600s for 10m, the args' keys reordered, 30m as minutes.
    const same = await scheduler.plan(
      file(set, [
        {
          jobId: a,
          pipeline: 'plan-etl',
          calendar: { hour: 2, minute: 0 },
          timezone: 'Europe/Paris',
          args: [{ n: 1, region: 'eu' }],
          misfireGraceTime: '600s',
          paused: true,
        },
        { jobId: b, pipeline: 'plan-health', minutes: 30, note: 'health', paused: true },
      ]),
    );
    expect(same.hasChanges).toBe(false);

    const edited = await scheduler.plan(file(set, jobs('0 3 * * *', '15m', [{ region: 'eu', n: 1 }])));
    expect(actions(edited)).toEqual({ [a]: 'update', [b]: 'unchanged' });
    expect(edited.jobs.find((j) => j.jobId === a)?.changes).toEqual([
      { field: 'trigger', from: 'cron "0 2 * * *"', to: 'cron "0 3 * * *"' },
      { field: 'catchupWindow', from: '10m', to: '15m' },
      { field: 'misfireGraceTime', from: '10m', to: '15m' },
    ]);
    await scheduler.apply(edited);
    const job = await scheduler.getJob(a);
    expect(job).toMatchObject({ trigger: { cron: '0 3 * * *' }, policies: { misfireGraceTime: '15m' } });
    expect(
      (await scheduler.plan(file(set, jobs('0 3 * * *', '15m', [{ region: 'eu', n: 1 }])))).hasChanges,
    ).toBe(false);
  });

  it('deletes a job removed from the file only with prune, and only jobs of its own set', async () => {
    const [set, other] = [t.uid('set'), t.uid('other')];
    const [keep, gone, theirs] = [t.uid('keep'), t.uid('gone'), t.uid('theirs')];
    const def = (jobId: string): JobDefinition => ({
      jobId,
      pipeline: 'plan-health',
      every: '1h',
      paused: true,
    });
    await scheduler.apply(await scheduler.plan(file(set, [def(keep), def(gone)])));
    await scheduler.apply(await scheduler.plan(file(other, [def(theirs)])));

    const noPrune = await scheduler.plan(file(set, [def(keep)]));
    expect(actions(noPrune)).toEqual({ [keep]: 'unchanged' });
    await scheduler.apply(noPrune);
    expect(await describeScheduleIfAny(t.client, gone)).toBeDefined();

    // The listing that finds the set's jobs is eventually consistent: wait until it shows the job.
    let pruned: JobPlan | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline;) {
      pruned = await scheduler.plan(file(set, [def(keep)]), { prune: true });
      if (pruned.jobs.some((j) => j.jobId === gone)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(actions(pruned!)).toEqual({ [keep]: 'unchanged', [gone]: 'delete' });
    expect(await scheduler.apply(pruned!)).toMatchObject({ deleted: [gone] });
    expect(await describeScheduleIfAny(t.client, gone)).toBeUndefined();
    expect(await describeScheduleIfAny(t.client, theirs)).toBeDefined();
  });

  it('blocks ids held by a raw Temporal schedule or by another set, and leaves both untouched', async () => {
    const [set, other] = [t.uid('set'), t.uid('other')];
    const [raw, taken, free] = [t.uid('raw'), t.uid('taken'), t.uid('free')];
    await t.client.schedule.create({
      scheduleId: raw,
      spec: { intervals: [{ every: '1h' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'someoneElsesWorkflow',
        taskQueue: t.taskQueue,
        args: [],
      },
      state: { paused: true },
    });
    await scheduler.apply(
      await scheduler.plan(
        file(other, [{ jobId: taken, pipeline: 'plan-health', every: '2h', paused: true }]),
      ),
    );
    const before = [
      token(await describeScheduleIfAny(t.client, raw)),
      token(await describeScheduleIfAny(t.client, taken)),
    ];
    const plan = await scheduler.plan(
      file(
        set,
        [raw, taken, free].map((jobId) => ({ jobId, pipeline: 'plan-etl', cron: '0 4 * * *', paused: true })),
      ),
    );
    expect(actions(plan)).toEqual({ [raw]: 'blocked', [taken]: 'blocked', [free]: 'create' });
    expect(plan.jobs.find((j) => j.jobId === raw)?.blocked?.reason).toBe('foreign');
    expect(plan.jobs.find((j) => j.jobId === taken)?.blocked).toMatchObject({
      reason: 'other-set',
      owner: other,
    });
    await expect(scheduler.apply(plan)).rejects.toBeInstanceOf(PlanBlockedError);
    expect([
      token(await describeScheduleIfAny(t.client, raw)),
      token(await describeScheduleIfAny(t.client, taken)),
    ]).toEqual(before);
    expect(await describeScheduleIfAny(t.client, free)).toBeUndefined();
    expect((await scheduler.getJob(taken)).foreign || (await scheduler.getJob(taken))).toMatchObject({
      trigger: { every: '2h' },
    });
  });

  it('shows an edit made with the Temporal CLI as drift, and apply writes the file back', async () => {
    const set = t.uid('set');
    const jobId = t.uid('drift');
    const jobs = file(set, [
      { jobId, pipeline: 'plan-etl', cron: '0 2 * * *', timezone: 'UTC', args: ['x'], paused: true },
    ]);
    await scheduler.apply(await scheduler.plan(jobs));
    const d = (await describeScheduleIfAny(t.client, jobId))!;
    // On-call edits the schedule with `temporal schedule update` (a full replacement: same workflow and input, new cron).
    await promisify(execFile)(inject('temporalCli'), [
      'schedule',
      'update',
      '--address',
      inject('temporalAddress'),
      '--namespace',
      inject('temporalNamespace'),
      '--schedule-id',
      jobId,
      '--cron',
      '30 4 * * 1-5',
      '--type',
      PIPELINE_WORKFLOW_TYPE,
      '--task-queue',
      t.taskQueue,
      '--workflow-id',
      d.action.type === 'startWorkflow' ? d.action.workflowId : jobId,
      '--input',
      JSON.stringify(d.action.type === 'startWorkflow' ? d.action.args?.[0] : null),
    ]);
    const plan = await scheduler.plan(jobs);
    const job = plan.jobs[0]!;
    expect(job.action).toBe('update');
    expect(job.drift).toContainEqual({
      field: 'trigger',
      from: 'cron "0 2 * * *"',
      to: 'cron "30 4 * * 1-5"',
    });
    expect(job.changes).toContainEqual({
      field: 'trigger',
      from: 'cron "30 4 * * 1-5"',
      to: 'cron "0 2 * * *"',
    });
    await scheduler.apply(plan);
    expect(await scheduler.getJob(jobId)).toMatchObject({
      editedOutside: false,
      trigger: { cron: '0 2 * * *' },
    });
    expect((await scheduler.plan(jobs)).hasChanges).toBe(false);
  });

  it("keeps on-call's pause and its note unless the file sets paused, and says so", async () => {
    const set = t.uid('set');
    const jobId = t.uid('oncall');
    const def: JobDefinition = { jobId, pipeline: 'plan-health', every: '1h', note: 'from the file' };
    await scheduler.apply(await scheduler.plan(file(set, [def])));
    await scheduler.pauseJob(jobId, 'db maintenance');
    const plan = await scheduler.plan(file(set, [def]));
    expect(plan.jobs[0]).toMatchObject({
      action: 'unchanged',
      kept: [expect.stringContaining('db maintenance')],
    });
    const explicit = await scheduler.plan(file(set, [{ ...def, paused: false }]));
    expect(explicit.jobs[0]?.changes).toEqual([
      { field: 'paused', from: 'true', to: 'false' },
      { field: 'note', from: '"db maintenance"', to: '"from the file"' },
    ]);
    await scheduler.apply(explicit);
    expect(await scheduler.getJob(jobId)).toMatchObject({ paused: false, note: 'from the file' });
    await scheduler.removeJob(jobId);
  });

  it('refuses a plan whose job changed before apply: nothing written', async () => {
    const set = t.uid('set');
    const [a, b] = [t.uid('a'), t.uid('b')];
    const def = (jobId: string, every: string): JobDefinition => ({
      jobId,
      pipeline: 'plan-health',
      every,
      paused: true,
    });
    await scheduler.apply(await scheduler.plan(file(set, [def(a, '1h'), def(b, '1h')])));
    const plan = await scheduler.plan(file(set, [def(a, '2h'), def(b, '2h')]));
    await scheduler.modifyJob(b, { note: 'changed meanwhile' });
    const err = await scheduler.apply(plan).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlanStaleError);
    expect((err as PlanStaleError).jobs).toEqual([{ jobId: b, change: 'changed' }]);
    expect(await scheduler.getJob(a)).toMatchObject({ trigger: { every: '1h' } });
  });

  it('refuses a file with a bad entry whole, naming the job and field: nothing created', async () => {
    const set = t.uid('set');
    const good = t.uid('good');
    const bad = t.uid('bad');
    const err = (() => {
      try {
        file(set, [
          { jobId: good, pipeline: 'plan-health', every: '1h' },
          { jobId: bad, pipeline: 'plan-etl', cron: '61 2 * * *' },
          { jobId: t.uid('nopipe'), pipeline: 'missing', every: '1h' },
        ]);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(JobSetError);
    const problems = (err as JobSetError).problems;
    expect(problems.map((p) => [p.jobId, p.field])).toEqual([
      [bad, 'cron'],
      [expect.stringMatching(/^nopipe-/), 'pipeline'],
    ]);
    expect((err as Error).message).toContain(`job "${bad}" (jobs[1]), cron:`);
    // The same through plan() with a raw definition: refused before anything is read or written.
    await expect(
      scheduler.plan({
        set,
        pipelines: [health],
        jobs: [
          { jobId: good, pipeline: 'plan-health', every: '1h' },
          { jobId: bad, pipeline: 'plan-health', every: '1h', maxInstances: 0 },
        ],
      }),
    ).rejects.toBeInstanceOf(JobSetError);
    expect(await describeScheduleIfAny(t.client, good)).toBeUndefined();
  });
});

/** `temporal schedule update` of a job in the form its help gives: ids, type, queue, input, a new cron. */
async function cliUpdate(jobId: string, cron: string): Promise<void> {
  const d = (await describeScheduleIfAny(t.client, jobId))!;
  if (d.action.type !== 'startWorkflow') throw new Error('not a workflow schedule');
  await promisify(execFile)(inject('temporalCli'), [
    'schedule',
    'update',
    '--address',
    inject('temporalAddress'),
    '--namespace',
    inject('temporalNamespace'),
    '--schedule-id',
    jobId,
    '--workflow-id',
    d.action.workflowId,
    '--task-queue',
    d.action.taskQueue,
    '--type',
    PIPELINE_WORKFLOW_TYPE,
    '--input',
    JSON.stringify(d.action.args?.[0]),
    '--cron',
    cron,
  ]);
}

describe('--adopt, then --prune', () => {
  it.each([
    ['as adopted', false],
    ["after a 'temporal schedule update' of the adopted job", true],
  ])(
    'deletes a job made by schedule() and adopted by the set, once the file drops it (%s)',
    async (_case, cliEdit) => {
      const set = t.uid('adopt');
      const [adopted, kept] = [t.uid('adopted'), t.uid('kept')];
      const def = (jobId: string): JobDefinition => ({
        jobId,
        pipeline: 'plan-health',
        every: '1h',
        paused: true,
      });
      await scheduler.schedule(health, { jobId: adopted, cron: '0 5 * * *', paused: true });

      // Without --adopt the job of no set is blocked; with it, the plan updates it and says it adopts it.
      const blocked = await scheduler.plan(file(set, [def(adopted), def(kept)]));
      expect(blocked.jobs.find((j) => j.jobId === adopted)?.blocked?.reason).toBe('no-set');
      const adopting = await scheduler.plan(file(set, [def(adopted), def(kept)]), { adopt: true });
      expect(actions(adopting)).toEqual({ [adopted]: 'update', [kept]: 'create' });
      expect(adopting.jobs.find((j) => j.jobId === adopted)?.kept).toContain(
        `adopted: the job becomes set "${set}"'s`,
      );
      expect(await scheduler.apply(adopting)).toMatchObject({ updated: [adopted], created: [kept] });
      // It is the set's now: no --adopt needed, nothing to change; ownership is where an outside edit keeps it.
      expect(actions(await scheduler.plan(file(set, [def(adopted), def(kept)])))).toEqual({
        [adopted]: 'unchanged',
        [kept]: 'unchanged',
      });
      expect(
        (await describeScheduleIfAny(t.client, adopted))?.typedSearchAttributes.get(SET_SEARCH_ATTRIBUTE),
      ).toBe(set);

      // Every later write keeps it, a replaceExisting that sends search attributes of its own included.
      await scheduler.pauseJob(adopted, 'kept paused');
      await scheduler.modifyJob(adopted, { args: ['again'] });
      await scheduler.schedule(health, {
        jobId: adopted,
        cron: '0 6 * * *',
        paused: true,
        replaceExisting: true,
      });
      expect(
        (await describeScheduleIfAny(t.client, adopted))?.typedSearchAttributes.get(SET_SEARCH_ATTRIBUTE),
      ).toBe(set);

      if (cliEdit) {
        await cliUpdate(adopted, '30 4 * * *');
        // Still the set's: a drift to write back, not a job of no set.
        const drifted = (await scheduler.plan(file(set, [def(adopted), def(kept)]))).jobs.find(
          (j) => j.jobId === adopted,
        );
        expect(drifted).toMatchObject({ action: 'update', drift: expect.any(Array) });
      }

      // The file drops it: the listing (eventually consistent) finds it by TflowSet, and prune deletes it.
      const pruned = await waitFor('the prune plan to find the adopted job', async () => {
        const plan = await scheduler.plan(file(set, [def(kept)]), { prune: true });
        return plan.jobs.some((j) => j.jobId === adopted) ? plan : undefined;
      });
      expect(actions(pruned)).toEqual({ [adopted]: 'delete', [kept]: 'unchanged' });
      expect(await scheduler.apply(pruned)).toMatchObject({ deleted: [adopted] });
      expect(await describeScheduleIfAny(t.client, adopted)).toBeUndefined();
      await scheduler.removeJob(kept);
    },
  );
});

describe('a job adopted by an earlier version (its set only in the mark of its action memo)', () => {
  it('is planned as an update once, which writes TflowSet where an outside edit keeps it', async () => {
    const set = t.uid('legacy');
    const jobId = t.uid('legacy');
    const jobs = file(set, [{ jobId, pipeline: 'plan-health', every: '1h', paused: true }]);
    await scheduler.schedule(health, { jobId, cron: '0 5 * * *', paused: true });
    await scheduler.apply(await scheduler.plan(jobs, { adopt: true }));
    // What the earlier version left: the same job without TflowSet.
    await t.client.schedule.getHandle(jobId).update((prev) => ({
      ...prev,
      searchAttributes: undefined,
      typedSearchAttributes: new TypedSearchAttributes(
        prev.typedSearchAttributes.getAll().filter((p) => p.key.name !== SET_SEARCH_ATTRIBUTE.name),
      ),
    }));
    const setOf = async () =>
      (await describeScheduleIfAny(t.client, jobId))?.typedSearchAttributes.get(SET_SEARCH_ATTRIBUTE);
    // The scheduler workflow writes search attributes after it takes the update: wait until it has.
    await waitFor('TflowSet to be removed', async () => ((await setOf()) === undefined ? true : undefined));

    const plan = await scheduler.plan(jobs);
    expect(plan.jobs[0]).toMatchObject({
      action: 'update',
      changes: [],
      kept: ["ownership: written to the job's TflowSet search attribute, which an outside edit keeps"],
    });
    await scheduler.apply(plan);
    expect(await setOf()).toBe(set);
    expect(actions(await scheduler.plan(jobs))).toEqual({ [jobId]: 'unchanged' });
    await scheduler.removeJob(jobId);
  });
});

describe('an apply whose alert evaluator cannot be started', () => {
  it('writes nothing: the evaluator is made sure of before the first write', async () => {
    const set = t.uid('ev-fails');
    const [first, second] = [t.uid('ev-fails-a'), t.uid('ev-fails-b')].sort();
    // A task queue name the server refuses: the evaluator's start fails before any schedule is written.
    const refusing = new PipelineScheduler(t.client, {
      taskQueue: t.taskQueue,
      watchdogTaskQueue: '/_sys/refused',
    });
    const def = (jobId: string): JobDefinition => ({
      jobId,
      pipeline: 'plan-health',
      every: '1h',
      paused: true,
      expectSuccessWithin: '2h',
      onSilent: 'page',
    });
    const jobs = file(set, [def(first!), def(second!)]);
    const err = await refusing.apply(await refusing.plan(jobs)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AlertEvaluatorStartError);
    expect(err).toMatchObject({ taskQueue: '/_sys/refused' });
    expect((err as Error).message).toMatch(
      /^the alert evaluator of task queue "\/_sys\/refused" could not be started \(.*reserved prefix.*\): nothing was written; check the scheduler's watchdogTaskQueue/,
    );
    expect(await describeScheduleIfAny(t.client, first!)).toBeUndefined();
    expect(await describeScheduleIfAny(t.client, second!)).toBeUndefined();
  });
});

describe('a job left marked finished by a delete that failed after its mark', () => {
  it('is planned as a create that apply carries out (the leftover deleted first), once', async () => {
    const set = t.uid('finished');
    const jobId = t.uid('finished');
    const jobs = file(set, [{ jobId, pipeline: 'plan-health', every: '1h', paused: true }]);
    await scheduler.apply(await scheduler.plan(jobs));
    // What apply's delete (and a one-off's clean-up) writes before the delete itself, which then failed.
    await updateJob(t.client, jobId, finishedUpdate, 1);

    const plan = await scheduler.plan(jobs);
    expect(actions(plan)).toEqual({ [jobId]: 'create' });
    expect(await scheduler.apply(plan)).toMatchObject({ created: [jobId] });
    expect(await scheduler.getJob(jobId)).toMatchObject({ trigger: { every: '1h' }, paused: true });
    expect((await describeScheduleIfAny(t.client, jobId))?.action.memo?.tflowFinished).toBeUndefined();
    expect(actions(await scheduler.plan(jobs))).toEqual({ [jobId]: 'unchanged' });

    // And a leftover the file no longer lists is deleted by prune, not left paused forever.
    await updateJob(t.client, jobId, finishedUpdate, 1);
    const pruned = await waitFor('the prune plan to find the leftover', async () => {
      const p = await scheduler.plan(file(set, []), { prune: true });
      return p.jobs.length > 0 ? p : undefined;
    });
    expect(actions(pruned)).toEqual({ [jobId]: 'delete' });
    await scheduler.apply(pruned);
    expect(await describeScheduleIfAny(t.client, jobId)).toBeUndefined();
  });
});

/** Starts one deploy process (test/fixtures/jobs-apply-process.ts); resolves once it has planned. */
function deploy(prefix: string, variant: 'a' | 'b') {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'test/fixtures/jobs-apply-process.ts',
      inject('temporalAddress'),
      inject('temporalNamespace'),
      t.taskQueue,
      prefix,
      variant,
    ],
    { cwd: path.resolve(__dirname, '../..'), stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  const planned = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (buf: Buffer) => {
      out += buf.toString();
      if (out.includes('planned\n')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`deploy ${variant} exited (${code}) before planning: ${out}`)),
    );
  });
  const done = new Promise<{ ok: boolean; error?: string }>((resolve, reject) => {
    child.once('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0) reject(new Error(`deploy ${variant} exited ${code}: ${out}`));
      else resolve(JSON.parse(last) as { ok: boolean; error?: string });
    });
  });
  return { planned, done, go: () => child.stdin.end('go\n') };
}

describe('two applies racing from two processes', () => {
  it('end with each job in one of the two states, never a mix, never a lost job', async () => {
    const prefix = t.uid('race');
    const outcomes: unknown[] = [];
    for (let round = 0; round < 4; round++) {
      const [a, b] = [deploy(prefix, 'a'), deploy(prefix, 'b')];
      await Promise.all([a.planned, b.planned]);
      a.go();
      b.go();
      const results = await Promise.all([a.done, b.done]);
      outcomes.push(results);
      for (const n of [1, 2, 3, 4]) {
        const job = await scheduler.getJob(`${prefix}-${n}`);
        if (job.foreign) throw new Error('a race job became foreign');
        const state = [(job.trigger as { cron: string }).cron, job.args];
        expect([
          ['0 1 * * *', ['a']],
          ['0 2 * * *', ['b']],
        ]).toContainEqual(state);
      }
      // Whatever won, each file plans as a clean diff from here: nothing half-written.
      for (const variant of ['a', 'b'] as const) {
        const plan = await scheduler.plan(raceJobs(prefix, variant));
        for (const j of plan.jobs) expect(['update', 'unchanged', 'create']).toContain(j.action);
      }
    }
    // The applies did race: at least once, one of them lost to the other.
    expect(outcomes.flat().some((o) => !(o as { ok: boolean }).ok)).toBe(true);
  });
});
