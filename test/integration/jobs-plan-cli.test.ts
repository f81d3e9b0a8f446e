import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { tflow } from '../helpers/cli';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { describeScheduleIfAny } from '../../src/client/describe-schedule';
import { PIPELINE_WORKFLOW_TYPE } from '../../src/workflows/run-types';
import { pipeline } from '../../src/pipeline';
import { connectTest, type TestContext } from '../helpers/temporal';

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
async function run(args: string[]): Promise<{ out: string; err: string; code: number }> {
  const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.stubEnv('TFLOW_TASK_QUEUE', t.taskQueue);
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
});
