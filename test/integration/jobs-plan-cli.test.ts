import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { tflow } from '../helpers/cli';
import { buildProgram } from '../../src/cli/main';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { describeScheduleIfAny } from '../../src/client/describe-schedule';
import { PIPELINE_WORKFLOW_TYPE } from '../../src/workflows/run-types';
import { pipeline } from '../../src/pipeline';
import { alertEvaluatorWorkflowId } from '../../src/workflows/alerts/evaluator-defs';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

let t: TestContext;
let dir: string;
const spec = pipeline('cli-plan-etl').step('extract').step('load').spec;

beforeAll(async () => {
  t = await connectTest('plan-cli');
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-plan-'));
});
afterAll(async () => {
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `tflow plan|apply <args>` in process, piped, and returns what it printed and its exit code.
 * TFLOW_TASK_QUEUE is the test's own, as a deploy sets it for its workers' queue.
 */
async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ out: string; err: string; code: number }> {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.stubEnv('TFLOW_TASK_QUEUE', t.taskQueue);
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  process.exitCode = undefined;
  try {
    const out = await tflow(args, { tty: false });
    return {
      out,
      err: errors.mock.calls.map((c) => String(c[0])).join('\n'),
      code: Number(process.exitCode ?? 0),
    };
  } finally {
    process.exitCode = undefined;
    vi.unstubAllEnvs();
    errors.mockRestore();
  }
}

async function jobsFile(name: string, set: string, jobs: Record<string, unknown>[]): Promise<string> {
  const file = path.join(dir, name);
  const body = { set, pipelines: [spec], jobs };
  await writeFile(file, name.endsWith('.json') ? JSON.stringify(body) : stringify(body));
  return file;
}

describe('tflow plan / tflow apply', () => {
  it('prints + create, ~ update, - delete and drift, with terraform exit codes (0 none, 2 changes, 1 error)', async () => {
    const set = t.uid('cli-set');
    const [a, b] = [t.uid('cli-a'), t.uid('cli-b')];
    const job = (jobId: string, cron: string) => ({
      jobId,
      pipeline: 'cli-plan-etl',
      cron,
      timezone: 'Europe/Paris',
      paused: true,
    });
    const v1 = await jobsFile('v1.yaml', set, [job(a, '0 2 * * *'), job(b, '0 6 * * *')]);

    const created = await run(['plan', v1]);
    console.info(`--- tflow plan (create) ---\n${created.out}`);
    expect(created.code).toBe(2);
    expect(created.out).toContain(`  + ${a} (cli-plan-etl)`);
    expect(created.out).toContain('      trigger: cron "0 2 * * *"');
    expect(created.out).toContain('Plan: 2 to create, 0 to update, 0 to delete, 0 unchanged, 0 blocked.');

    const refused = await run(['apply', v1]);
    expect(refused).toMatchObject({ code: 1, err: expect.stringContaining('pass --yes') });
    expect(await describeScheduleIfAny(t.client, a)).toBeUndefined();

    const applied = await run(['apply', v1, '--yes']);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain(`created: ${[a, b].sort().join(', ')}`);
    expect(applied.out).toContain('Apply complete: 2 created, 0 updated, 0 deleted.');
    expect(await run(['plan', v1])).toMatchObject({ code: 0, out: expect.stringContaining('No changes') });

    const v2 = await jobsFile('v2.json', set, [job(a, '0 3 * * *')]);
    const updated = await run(['plan', v2, '--prune']);
    console.info(`--- tflow plan --prune (update, delete) ---\n${updated.out}`);
    expect(updated.code).toBe(2);
    expect(updated.out).toContain(
      `  ~ ${a} (cli-plan-etl)\n      trigger: cron "0 2 * * *" -> cron "0 3 * * *"\n`,
    );
    expect(updated.out).toContain(`  - ${b} (cli-plan-etl)`);
    expect(await run(['apply', v2, '--prune', '--yes'])).toMatchObject({ code: 0 });
    expect(await describeScheduleIfAny(t.client, b)).toBeUndefined();

    // An edit with the Temporal CLI: a full replacement with the same workflow and input, a new cron.
    const d = (await describeScheduleIfAny(t.client, a))!;
    if (d.action.type !== 'startWorkflow') throw new Error('not a workflow schedule');
    await promisify(execFile)(inject('temporalCli'), [
      'schedule',
      'update',
      '--address',
      inject('temporalAddress'),
      '--namespace',
      inject('temporalNamespace'),
      '--schedule-id',
      a,
      '--cron',
      '30 4 * * 1-5',
      '--time-zone',
      'Europe/Paris',
      '--type',
      PIPELINE_WORKFLOW_TYPE,
      '--task-queue',
      t.taskQueue,
      '--workflow-id',
      d.action.workflowId,
      '--input',
      JSON.stringify(d.action.args?.[0]),
    ]);
    const drift = await run(['plan', v2]);
    console.info(`--- tflow plan (drift) ---\n${drift.out}`);
    expect(drift.code).toBe(2);
    expect(drift.out).toContain(`  ~ ${a} (cli-plan-etl) [drift]`);
    expect(drift.out).toContain('        trigger: cron "0 3 * * *" -> cron "30 4 * * 1-5" (outside)');

    const json = await run(['plan', v2, '--json']);
    const plan = JSON.parse(json.out) as { jobs: { jobId: string; action: string; drift?: unknown[] }[] };
    expect(plan.jobs).toEqual([
      expect.objectContaining({ jobId: a, action: 'update', drift: expect.any(Array) }),
    ]);
    await new PipelineScheduler(t.client, { taskQueue: t.taskQueue }).removeJob(a);
  });

  it('loads a TypeScript jobs file, and reports a bad file with exit code 1 and no stack trace', async () => {
    const prefix = t.uid('cli-ts');
    vi.stubEnv('TFLOW_TEST_JOBS_PREFIX', prefix);
    const ts = path.resolve(__dirname, '../fixtures/cli-jobs.ts');
    const planned = await run(['plan', ts]);
    expect(planned).toMatchObject({
      code: 2,
      out: expect.stringContaining(`  + ${prefix}-ts-etl (cli-ts-etl)`),
    });

    const bad = await jobsFile('bad.yaml', t.uid('bad'), [
      { jobId: 'ok-job', pipeline: 'cli-plan-etl', every: '1h' },
      { jobId: 'bad-job', pipeline: 'cli-plan-etl', cron: '0 2 * * * *' },
    ]);
    const refused = await run(['plan', bad]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('problem, nothing applied');
    expect(refused.err).toContain('job "bad-job" (jobs[1]), cron:');
    expect(refused.err).not.toContain('    at ');
    expect(await run(['plan', path.join(dir, 'missing.yaml')])).toMatchObject({
      code: 1,
      err: expect.stringContaining('no jobs file at'),
    });
  });

  it('prints no secret of an alert target (kind and hash only), in the text and --json of create, update and delete plans', async () => {
    const set = t.uid('cli-secret');
    const jobId = t.uid('cli-secret');
    // No alert worker polls this queue: its evaluator waits there, and never calls the webhook.
    const watchdogQueue = t.uid('cli-secret-watchdog');
    const job = (token: string) => ({
      jobId,
      pipeline: 'cli-plan-etl',
      cron: '0 2 * * *',
      paused: true,
      expectSuccessWithin: '26h',
      onSilent: {
        webhook: {
          url: 'https://hooks.example/services/T000/B000?token=abc',
          headers: { authorization: `Bearer ${token}` },
        },
      },
    });
    const secrets = ['s3cret-token', 'token=abc', 'other-token', 'T000/B000', 'hooks.example'];
    const quiet = (r: { out: string; err: string }) => {
      for (const secret of secrets) expect(`${r.out}\n${r.err}`).not.toContain(secret);
    };
    const v1 = await jobsFile('secret-v1.yaml', set, [job('s3cret-token')]);
    const created = await run(['plan', v1]);
    console.info(`--- tflow plan (create, alerts) ---\n${created.out}`);
    expect(created.code).toBe(2);
    expect(created.out).toMatch(
      / {6}alerts: \{"expectSuccessWithin":"26h","onSilent":"webhook#[0-9a-f]{8}"\}\n/,
    );
    quiet(created);
    quiet(await run(['plan', v1, '--json']));
    const applied = await run(['apply', v1, '--yes', '--json', '--watchdog-task-queue', watchdogQueue]);
    expect(applied.code).toBe(0);
    quiet(applied);

    // The header changes: the plan shows a change of hash, and neither token.
    const v2 = await jobsFile('secret-v2.yaml', set, [job('other-token')]);
    const updated = await run(['plan', v2]);
    console.info(`--- tflow plan (update, alerts) ---\n${updated.out}`);
    expect(updated.code).toBe(2);
    const change =
      /alerts: \{"expectSuccessWithin":"26h","onSilent":"(webhook#[0-9a-f]{8})"\} -> \{"expectSuccessWithin":"26h","onSilent":"(webhook#[0-9a-f]{8})"\}/.exec(
        updated.out,
      );
    expect(change).not.toBeNull();
    expect(change![1]).not.toBe(change![2]);
    quiet(updated);
    const json = await run(['plan', v2, '--json']);
    quiet(json);
    const plan = JSON.parse(json.out) as {
      jobs: { changes: { field: string; from?: string; to?: string }[] }[];
    };
    expect(plan.jobs[0]?.changes).toEqual([
      {
        field: 'alerts',
        from: expect.stringContaining(change![1]!),
        to: expect.stringContaining(change![2]!),
      },
    ]);

    // The file drops it: the delete plan lists the values removed (all of them in --json), hashed too.
    const v3 = await jobsFile('secret-v3.yaml', set, []);
    const deleting = await waitFor('the prune plan to list the job', async () => {
      const r = await run(['plan', v3, '--prune', '--json']);
      return r.out.includes('"action": "delete"') ? r : undefined;
    });
    const removed = JSON.parse(deleting.out) as typeof plan;
    expect(removed.jobs[0]?.changes).toContainEqual({
      field: 'alerts',
      from: `{"expectSuccessWithin":"26h","onSilent":"${change![1]}"}`,
    });
    quiet(deleting);
    quiet(await run(['plan', v3, '--prune']));

    // An error about a target names its field and host, never its path, query or header.
    const bad = await jobsFile('secret-bad.yaml', set, [
      {
        ...job('s3cret-token'),
        onSilent: { webhook: { url: 'ftp://hooks.example/services/T000/B000?token=abc' } },
      },
      {
        ...job('s3cret-token'),
        jobId: t.uid('cli-secret-2'),
        onSilent: { webhook: { url: 'https://h.example', headers: 'Bearer s3cret-token' } },
      },
    ]);
    const refused = await run(['plan', bad]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      'onSilent.webhook.url must be an http(s) URL, got a ftp: URL (host hooks.example)',
    );
    expect(refused.err).toContain(
      'onSilent.webhook.headers must be an object of header names to strings, got a string',
    );
    for (const secret of ['s3cret-token', 'token=abc', 'T000/B000'])
      expect(refused.err).not.toContain(secret);

    await new PipelineScheduler(t.client, {
      taskQueue: t.taskQueue,
      watchdogTaskQueue: watchdogQueue,
    }).removeJob(jobId);
    await t.client.workflow.getHandle(alertEvaluatorWorkflowId(watchdogQueue)).terminate('test over');
  });

  it("starts the alert evaluator of apply's --watchdog-task-queue, else of TFLOW_WATCHDOG_TASK_QUEUE, and the job names it", async () => {
    const set = t.uid('cli-wd');
    const [byFlag, byEnv] = [t.uid('cli-wd-flag'), t.uid('cli-wd-env')];
    const [flagQueue, envQueue] = [t.uid('wd-flag'), t.uid('wd-env')];
    const job = (jobId: string) => ({
      jobId,
      pipeline: 'cli-plan-etl',
      every: '1h',
      paused: true,
      expectSuccessWithin: '2h',
      onSilent: 'page',
    });
    const queueOf = async (jobId: string) => {
      const d = await t.client.schedule.getHandle(jobId).describe();
      const queue = (d.action.memo?.tflowJob as { alertQueue?: string } | undefined)?.alertQueue;
      // The evaluator of the job's queue runs (no worker polls it here: it only waits).
      const evaluator = await t.client.workflow.getHandle(alertEvaluatorWorkflowId(queue!)).describe();
      expect(evaluator).toMatchObject({ status: { name: 'RUNNING' }, taskQueue: queue });
      return queue;
    };

    // The flag wins over the variable.
    const first = await jobsFile('wd-1.yaml', set, [job(byFlag)]);
    const flagged = await run(['apply', first, '--yes', '--watchdog-task-queue', flagQueue], {
      TFLOW_WATCHDOG_TASK_QUEUE: envQueue,
    });
    expect(flagged).toMatchObject({ code: 0, err: '' });
    expect(await queueOf(byFlag)).toBe(flagQueue);

    const second = await jobsFile('wd-2.yaml', set, [job(byFlag), job(byEnv)]);
    const byVariable = await run(['apply', second, '--yes'], { TFLOW_WATCHDOG_TASK_QUEUE: envQueue });
    expect(byVariable).toMatchObject({ code: 0, err: '' });
    expect(await queueOf(byEnv)).toBe(envQueue);

    // doctor --repair takes the variable too (its flag's default), as apply does.
    vi.stubEnv('TFLOW_WATCHDOG_TASK_QUEUE', envQueue);
    try {
      const defaults = Object.fromEntries(
        buildProgram().commands.map((c) => [
          c.name(),
          c.options.find((o) => o.long === '--watchdog-task-queue')?.defaultValue as unknown,
        ]),
      );
      expect(defaults).toMatchObject({ apply: envQueue, doctor: envQueue });
    } finally {
      vi.unstubAllEnvs();
    }
    expect(
      buildProgram()
        .commands.find((c) => c.name() === 'doctor')
        ?.options.find((o) => o.long === '--watchdog-task-queue')?.defaultValue,
    ).toBe('tflow-watchdog');

    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
    for (const jobId of [byFlag, byEnv]) await scheduler.removeJob(jobId);
    for (const queue of [flagQueue, envQueue]) {
      await t.client.workflow.getHandle(alertEvaluatorWorkflowId(queue)).terminate('test over');
    }
  });

  it("--adopt makes a job of no set the file's, and --prune deletes it once the file drops it", async () => {
    const set = t.uid('cli-adopt');
    const [adopted, other] = [t.uid('cli-adopted'), t.uid('cli-other')];
    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue });
    await scheduler.schedule(spec, { jobId: adopted, cron: '0 5 * * *', paused: true });
    const job = (jobId: string) => ({ jobId, pipeline: 'cli-plan-etl', cron: '0 5 * * *', paused: true });
    const both = await jobsFile('adopt-1.yaml', set, [job(adopted), job(other)]);

    expect(await run(['plan', both])).toMatchObject({ out: expect.stringContaining(`  ! ${adopted}`) });
    const planned = await run(['plan', both, '--adopt']);
    expect(planned.code).toBe(2);
    expect(planned.out).toContain(`  ~ ${adopted} (cli-plan-etl)\n`);
    expect(planned.out).toContain(`kept: adopted: the job becomes set "${set}"'s`);
    expect(await run(['apply', both, '--adopt', '--yes'])).toMatchObject({ code: 0, err: '' });
    expect(await run(['plan', both])).toMatchObject({ code: 0, out: expect.stringContaining('No changes') });

    const one = await jobsFile('adopt-2.yaml', set, [job(other)]);
    const pruning = await waitFor('the prune plan to list the adopted job', async () => {
      const r = await run(['plan', one, '--prune']);
      return r.out.includes(`  - ${adopted}`) ? r : undefined;
    });
    expect(pruning.out).toContain('Plan: 0 to create, 0 to update, 1 to delete, 1 unchanged, 0 blocked.');
    expect(await run(['apply', one, '--prune', '--yes'])).toMatchObject({ code: 0 });
    expect(await describeScheduleIfAny(t.client, adopted)).toBeUndefined();
    await scheduler.removeJob(other);
  });
});
