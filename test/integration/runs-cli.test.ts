import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { RunNotFoundError } from '../../src/client/errors';
import type { DeadLetter } from '../../src/client/dead-letters/dead-letters';
import type { RunDescription } from '../../src/client/runs/run-describe';
import { tflow } from '../helpers/cli';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/*
 * What a new user does from the CLI alone: find a failed run, see why, redrive it, see the redrive
 * finish. Runs the real commands in process against the suite's server, on a fake TTY and with --json.
 */

let broken = true;
let flakyFails = true;
const steps = {
  async flaky(x: string) {
    if (flakyFails) throw ApplicationFailure.create({ type: 'NotYet', message: 'not yet' });
    return x;
  },
  async reserve(order: string) {
    return { order, seats: 2 };
  },
  async release(_order: string, _reserved: unknown) {
    return 'released';
  },
  async pay(reserved: { order: string }) {
    if (broken) {
      // Retryable: the step's policy allows 2 attempts, and the card shows both.
      throw ApplicationFailure.create({ type: 'CardDeclined', message: 'card declined' });
    }
    return `paid ${reserved.order}`;
  },
};

let t: TestContext;
let pipelines: PipelineClient;
const booking = pipeline('cli-booking', { steps })
  .step('reserve', { compensate: 'release' })
  .step('pay', { retry: { maximumAttempts: 2, initialInterval: '50ms' } });

beforeAll(async () => {
  t = await connectTest('runs-cli');
  await t.startWorker(steps);
  pipelines = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

describe('tflow runs, runs show, dead-letters, dead-letters redrive', () => {
  it('finds a failed run, shows why, redrives it and shows the redrive completed', async () => {
    const workflowId = t.uid('cli-booking');
    await expect(pipelines.run(booking, ['order-9'], { workflowId })).rejects.toBeInstanceOf(
      WorkflowFailedError,
    );

    // 1. Find it: `tflow dead-letters`, the queue (a table on a terminal, JSON with --json).
    const letters = await waitFor('the failed run in `tflow dead-letters --json`', async () => {
      const list = JSON.parse(
        await tflow(['dead-letters', '--json', '--pipeline', 'cli-booking', '--since', '10m']),
      ) as DeadLetter[];
      return list.some((r) => r.workflowId === workflowId) ? list : undefined;
    });
    expect(letters.find((r) => r.workflowId === workflowId)).toMatchObject({
      pipeline: 'cli-booking',
      failedStep: 'pay',
      failures: 1,
    });
    const table = (
      await tflow(['dead-letters', '--pipeline', 'cli-booking', '--since', '10m'], { tty: true })
    ).split('\n');
    expect(table[0]).toMatch(/^FAILED +PIPELINE +FAILED STEP +FAILURES +WORKFLOW ID +ERROR$/);
    const row = table.find((l) => l.includes(workflowId))!;
    expect(row).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \S+ \((now|[^)]+ ago)\) +cli-booking +pay +1 +/);
    expect(row).toContain('card declined');
    // Columns line up: every row starts its PIPELINE where the header does.
    expect(row.indexOf('cli-booking')).toBe(table[0]!.indexOf('PIPELINE'));
    // Piped, the same rows are tab-separated, without a header.
    expect(await tflow(['runs', '--status', 'failed', '--pipeline', 'cli-booking'])).toMatch(
      new RegExp(
        `^\\S+\\tfailed\\tdue -\\t\\d+ ms\\t${workflowId}\\tpipeline "cli-booking" failed at step "pay"`,
        'm',
      ),
    );

    // 2. See why: `tflow runs show` (a card on a terminal, the description with --json).
    const card = await tflow(['runs', 'show', workflowId], { tty: true });
    expect(card).toContain(`${workflowId}  failed`);
    expect(card).toContain('Failed     step pay after 2 attempts: CardDeclined: card declined');
    expect(card).toMatch(/\n {4}reserve +reserve +completed +1 +\d+ (ms|s)/);
    expect(card).toMatch(/\n {4}pay +pay +failed +2 +\d+ (ms|s) +CardDeclined: card declined/);
    expect(card).toMatch(/Compensations\n {4}STEP .*\n {4}reserve:compensate +release +completed +1 /);
    expect(card).toContain(`tflow dead-letters redrive ${workflowId}`);
    const shown = JSON.parse(await tflow(['runs', 'show', workflowId, '--json'])) as RunDescription;
    expect(shown).toMatchObject({
      workflowId,
      status: 'failed',
      args: ['order-9'],
      steps: [
        { id: 'reserve', activity: 'reserve', status: 'completed', attempts: 1 },
        {
          id: 'pay',
          activity: 'pay',
          status: 'failed',
          attempts: 2,
          error: 'card declined',
          errorType: 'CardDeclined',
        },
      ],
      compensations: [{ id: 'reserve:compensate', activity: 'release', status: 'completed' }],
      failureDetails: { failedStep: 'pay', attempts: 2, errorType: 'CardDeclined' },
    });

    // 3. Redrive it, once the card works again.
    broken = false;
    const redriven = JSON.parse(await tflow(['dead-letters', 'redrive', workflowId, '--json'])) as {
      workflowId: string;
    };
    expect(redriven.workflowId).toMatch(new RegExp(`^${workflowId}-redrive-`));
    await t.client.workflow.getHandle(redriven.workflowId).result();
    const after = JSON.parse(await tflow(['runs', 'show', redriven.workflowId, '--json'])) as RunDescription;
    expect(after).toMatchObject({
      status: 'completed',
      redriveOf: { workflowId, fromStep: 'pay' },
      steps: [{ id: 'pay', status: 'completed', attempts: 1 }],
      compensations: [],
    });
    const afterCard = await tflow(['runs', 'show', redriven.workflowId], { tty: true });
    expect(afterCard).toContain(`Redrives   ${workflowId}, from step pay`);
    // A letter redriven successfully leaves the queue.
    await waitFor('the letter gone from `tflow dead-letters --json`', async () => {
      const list = JSON.parse(
        await tflow(['dead-letters', '--json', '--pipeline', 'cli-booking', '--since', '10m']),
      ) as DeadLetter[];
      return list.every((r) => r.workflowId !== workflowId) || undefined;
    });
  });

  it('shows a running run: the step retrying, with its attempts so far and its last error', async () => {
    const retrying = pipeline('cli-retrying', { steps }).step('flaky', {
      retry: { initialInterval: '100ms', backoffCoefficient: 1 },
    });
    const workflowId = t.uid('cli-retrying');
    const handle = await pipelines.start(retrying, ['x'], { workflowId });
    try {
      const shown = await waitFor('the step past its second attempt', async () => {
        const run = JSON.parse(await tflow(['runs', 'show', workflowId, '--json'])) as RunDescription;
        return (run.steps[0]?.attempts ?? 0) >= 2 && run.steps[0]?.error ? run : undefined;
      });
      expect(shown).toMatchObject({
        status: 'running',
        steps: [{ id: 'flaky', error: 'not yet', errorType: 'NotYet' }],
      });
      // Between attempts it waits out its retry interval; during one, it runs.
      expect(['retrying', 'running']).toContain(shown.steps[0]!.status);
      const card = await tflow(['runs', 'show', workflowId], { tty: true });
      expect(card).toContain(`${workflowId}  running`);
      expect(card).toMatch(/\n {4}flaky +flaky +(retrying|running) +\d+ +- +NotYet: not yet/);
    } finally {
      flakyFails = false;
    }
    await handle.result();
    const done = JSON.parse(await tflow(['runs', 'show', workflowId, '--json'])) as RunDescription;
    expect(done.status).toBe('completed');
    expect(done.steps).toEqual([
      expect.objectContaining({ id: 'flaky', status: 'completed', attempts: expect.any(Number) as unknown }),
    ]);
    expect(done.steps[0]!.attempts).toBeGreaterThanOrEqual(2);
    expect(done.steps[0]!.error).toBeUndefined();
  });

  it('lists the runs of a pipeline whose name has backslashes, and none of its neighbour with one less', async () => {
    // SQL visibility doubles a queried backslash: an exact filter found nothing for such a name.
    const name = `C:\\runs\\ ${t.uid('p')}\\`;
    const odd = pipeline(name, { steps }).step('reserve');
    const workflowId = t.uid('odd');
    await pipelines.run(odd, ['order-1'], { workflowId });
    const listed = await waitFor('the run in `tflow runs --pipeline` of its odd name', async () => {
      const runs = JSON.parse(await tflow(['runs', '--json', '--pipeline', name])) as {
        workflowId: string;
      }[];
      return runs.length > 0 ? runs : undefined;
    });
    expect(listed.map((r) => r.workflowId)).toEqual([workflowId]);
    const neighbour = JSON.parse(
      await tflow(['runs', '--json', '--pipeline', name.slice(0, -1)]),
    ) as unknown[];
    expect(neighbour).toEqual([]);
  });

  it('says clearly when a run does not exist, and refuses a bad filter before calling the server', async () => {
    await expect(tflow(['runs', 'show', 'no-such-run-xyz'])).rejects.toThrow(RunNotFoundError);
    await expect(tflow(['dead-letters', 'redrive', 'no-such-run-xyz'])).rejects.toThrow(
      'no run "no-such-run-xyz" in this namespace',
    );
    await expect(tflow(['runs', '--since', 'yesterday'])).rejects.toThrow(
      /--since "yesterday" is not a duration/,
    );
  });
});

/** Runs the real `tflow` process to its end: exit code, stdout, stderr. */
async function tflowProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const conn = ['--address', inject('temporalAddress'), '--namespace', inject('temporalNamespace')];
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'src/cli/main.ts',
      ...args.slice(0, 1),
      ...conn,
      ...args.slice(1),
    ]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('tflow runs as a process: exit codes, one-line errors, help', () => {
  it('exits 2 with one line for a run not found and for a bad option, 0 with an example for --help', async () => {
    const [missing, badStatus, help] = await Promise.all([
      tflowProcess(['runs', 'show', 'no-such-run-xyz']),
      tflowProcess(['runs', '--status', 'broken']),
      tflowProcess(['dead-letters', 'redrive', '--help']),
    ]);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toBe(
      'tflow: no run "no-such-run-xyz" in this namespace (or it is past the retention period): `tflow runs` lists runs\n',
    );
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr.split('\n')[0]).toBe(
      "error: option '--status <status>' argument 'broken' is invalid. Allowed choices are running, completed, failed, skipped, cancelled, terminated, timed-out, continued-as-new.",
    );
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Example:\n  $ tflow dead-letters redrive etl-7f3c --from load');
  });
});
