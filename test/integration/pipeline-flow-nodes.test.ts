import { afterAll, beforeAll, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/main';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { pipeline } from '../../src/pipeline';
import { PipelineClient, RunAlreadyExistsError } from '../../src/client/runs/pipeline-client';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
import { RunSignalError } from '../../src/client/runs/run-signal';
import { CHAINED_FROM_MEMO, type PipelineFailureDetails } from '../../src/workflows/run-types';
import { PIPELINE_FAILED, WAIT_TIMED_OUT } from '../../src/workflows/failure-types';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

/** Every call the steps see, in order. */
let calls: string[] = [];
let release: (() => void) | undefined;
const show = (args: unknown[]) => args.map((a) => JSON.stringify(a)).join(', ');

const steps = {
  async a(x: number) {
    calls.push('a');
    return x + 1;
  },
  async b(x: number) {
    calls.push('b');
    return x * 10;
  },
  async echo(x: unknown) {
    calls.push(`echo(${JSON.stringify(x)})`);
    return x;
  },
  async boom(_x: unknown) {
    calls.push('boom');
    throw ApplicationFailure.create({ type: 'Boom', message: 'boom', nonRetryable: true });
  },
  async never() {
    calls.push('never');
  },
  async held(x: number) {
    calls.push('held');
    await new Promise<void>((r) => (release = r));
    return x;
  },
  async undo(...args: unknown[]) {
    calls.push(`undo(${show(args)})`);
  },
};

let t: TestContext;
let pipelines: PipelineClient;

beforeAll(async () => {
  t = await connectTest('flow-nodes');
  await t.startWorker(steps);
  pipelines = new PipelineClient(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => {
  release?.();
  await t?.close();
});
beforeEach(() => {
  calls = [];
});

async function failureOf(promise: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  const cause = (err as WorkflowFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  return cause as ApplicationFailure;
}

describe('child pipelines', () => {
  it('runs a child workflow with the previous output and passes its output on; progress shows its step', async () => {
    const child = pipeline('child', { steps }).step('held').step('b');
    const parent = pipeline('parent', { steps }).step('a').pipeline('sub', child).step('echo');
    const handle = await pipelines.start(parent, [1], { workflowId: t.uid('parent') });
    // Progress names the step once it is scheduled; `release` exists once the worker runs it (on a
    // loaded machine, later): both are waited for.
    const seen = await waitFor('the child to run its held step', async () => {
      const p = await pipelines.progress(handle.workflowId);
      return p.children?.[0]?.progress?.currentStep === 'held' && release ? p : undefined;
    });
    expect(seen.currentStep).toBe('sub');
    expect(seen.children).toEqual([
      expect.objectContaining({ step: 'sub', workflowId: `${handle.workflowId}/sub`, status: 'running' }),
    ]);
    release!();
    const result = await handle.result();
    expect(result.output).toBe(20);
    expect(result.steps.map((s) => s.id)).toEqual(['a', 'sub', 'echo']);
    const childRun = await t.client.workflow.getHandle(`${handle.workflowId}/sub`).describe();
    expect(childRun.parentExecution?.workflowId).toBe(handle.workflowId);
    expect(calls).toEqual(['a', 'held', 'b', 'echo(20)']);
  });

  it("a child's failure runs the child's saga, then the parent's", async () => {
    const child = pipeline('child-fails', { steps }).step('b', { compensate: 'undo' }).step('boom');
    const parent = pipeline('parent-fails', { steps })
      .step('a', { compensate: 'undo' })
      .pipeline('sub', child)
      .step('never');
    const failure = await failureOf(pipelines.run(parent, [1], { workflowId: t.uid('parent-fails') }));
    expect(failure.type).toBe(PIPELINE_FAILED);
    const details = failure.details?.[0] as PipelineFailureDetails;
    expect(details).toMatchObject({
      failedStep: 'sub',
      failedNode: 'sub',
      errorType: PIPELINE_FAILED,
      completedSteps: ['a'],
      compensations: [{ stepId: 'a', activity: 'undo', status: 'completed' }],
    });
    expect(details.message).toContain('pipeline "child-fails" failed at step "boom"');
    expect(calls).toEqual(['a', 'b', 'boom', 'undo(2, 20)', 'undo(1, 2)']);
  });

  it("a completed child is undone by the node's compensate when a later step fails", async () => {
    const child = pipeline('child-ok', { steps }).step('b');
    const parent = pipeline('parent-later-fails', { steps })
      .step('a')
      .pipeline('sub', child, { compensate: 'undo' })
      .step('boom');
    const failure = await failureOf(pipelines.run(parent, [1], { workflowId: t.uid('later-fails') }));
    expect((failure.details?.[0] as PipelineFailureDetails).compensations).toEqual([
      { stepId: 'sub', activity: 'undo', status: 'completed' },
    ]);
    expect(calls).toEqual(['a', 'b', 'boom', 'undo(2, 20)']);
  });
});

describe('waiting steps', () => {
  it('waitFor: the signal payload becomes the output; progress shows the wait; a wrong signal is refused', async () => {
    const p = pipeline('approval', { steps })
      .step('a', { compensate: 'undo' })
      .waitFor('approval', { signal: 'approve', timeout: '1m' })
      .step('echo');
    const handle = await pipelines.start(p, [1], { workflowId: t.uid('approval') });
    const waiting = await waitFor('the run to wait for approval', async () => {
      const progress = await pipelines.progress(handle.workflowId);
      return progress.waiting?.[0]?.step === 'approval' ? progress : undefined;
    });
    expect(waiting.waiting![0]).toMatchObject({ kind: 'waitFor', signal: 'approve' });
    expect(Date.parse(waiting.waiting![0]!.until!)).toBeGreaterThan(Date.now());
    await expect(pipelines.signal(handle.workflowId, 'aprove', {})).rejects.toThrow(
      new RunSignalError(handle.workflowId, 'aprove', 'its pipeline "approval" waits for "approve" only'),
    );
    await pipelines.signal(handle.workflowId, 'approve', { by: 'ann' });
    const result = await handle.result();
    expect(result.output).toEqual({ by: 'ann' });
    expect(calls).toEqual(['a', 'echo({"by":"ann"})']);
    await expect(pipelines.signal(handle.workflowId, 'approve')).rejects.toThrow(/it is completed/);
  });

  it('waitFor timing out: fail rolls back and fails the run; continue goes on with the input', async () => {
    const failing = pipeline('approval-timeout', { steps })
      .step('a', { compensate: 'undo' })
      .waitFor('approval', { signal: 'approve', timeout: '1s' })
      .step('never');
    const failure = await failureOf(pipelines.run(failing, [1], { workflowId: t.uid('wait-fail') }));
    expect(failure.details?.[0]).toMatchObject({
      failedStep: 'approval',
      errorType: WAIT_TIMED_OUT,
      message: 'no signal "approve" within 1000 ms',
      compensations: [{ stepId: 'a', status: 'completed' }],
    });
    expect(calls).toEqual(['a', 'undo(1, 2)']);

    calls = [];
    const going = pipeline('approval-optional', { steps })
      .step('a')
      .waitFor('approval', { signal: 'approve', timeout: '1s', onTimeout: 'continue' })
      .step('echo');
    expect(await pipelines.run(going, [1], { workflowId: t.uid('wait-continue') })).toBe(2);
    expect(calls).toEqual(['a', 'echo(2)']);
  });

  it('a signal sent before the run reaches its waitFor is kept for it; sleep passes its input on', async () => {
    const p = pipeline('early-signal', { steps })
      .step('a')
      .sleep('nap', '1s')
      .waitFor('approval', { signal: 'approve' })
      .step('echo');
    const handle = await pipelines.start(p, [1], { workflowId: t.uid('early') });
    const napping = await waitFor('the run to sleep', async () => {
      const progress = await pipelines.progress(handle.workflowId);
      return progress.waiting?.[0]?.step === 'nap' ? progress : undefined;
    });
    expect(napping.waiting![0]!.kind).toBe('sleep');
    await pipelines.signal(handle.workflowId, 'approve', 'yes');
    const result = await handle.result();
    expect(result.output).toBe('yes');
    expect(result.steps.map((s) => s.id)).toEqual(['a', 'nap', 'approval', 'echo']);
    expect(result.steps[1]!.durationMs).toBeGreaterThanOrEqual(1000);
  });
});

describe('races', () => {
  it('two signals sent at once to two waits on the same name: each wait takes one', async () => {
    const p = pipeline('two-votes', { steps })
      .waitFor('first', { signal: 'vote', timeout: '1m' })
      .step('echo')
      .waitFor('second', { signal: 'vote', timeout: '1m' })
      .step('echo', { id: 'echo2' });
    const handle = await pipelines.start(p, [], { workflowId: t.uid('votes') });
    await Promise.all([
      pipelines.signal(handle.workflowId, 'vote', 'x'),
      pipelines.signal(handle.workflowId, 'vote', 'y'),
    ]);
    await handle.result();
    expect(calls.sort()).toEqual(['echo("x")', 'echo("y")']);
  });

  it('two runs completing at once with the same chain jobId start one chained run', async () => {
    const jobId = t.uid('chained-once');
    const next = pipeline('chained-once', { steps }).step('b');
    const first = pipeline('chain-race', { steps }).step('a').then(next, { jobId });
    const results = await Promise.all(
      [1, 2].map(async (x) => (await pipelines.start(first, [x], { workflowId: t.uid('race') })).result()),
    );
    const chained = results.map((r) => r.chained![0]!);
    expect(chained.map((c) => c.workflowId)).toEqual([jobId, jobId]);
    expect(chained.filter((c) => c.runId !== undefined)).toHaveLength(1);
    await t.client.workflow.getHandle(jobId).result();
    expect(calls.filter((c) => c === 'b')).toHaveLength(1);
  });
});

describe('tflow runs signal', () => {
  async function tflow(...args: string[]): Promise<string> {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      const conn = ['--address', inject('temporalAddress'), '--namespace', inject('temporalNamespace')];
      await buildProgram().parseAsync(['node', 'tflow', 'runs', 'signal', ...conn, ...args]);
      return log.mock.calls.map((c) => String(c[0])).join('\n');
    } finally {
      log.mockRestore();
    }
  }

  it('sends the payload (JSON, else text) to a waiting run; refuses a signal the run does not wait for', async () => {
    const p = pipeline('cli-approval', { steps }).waitFor('approval', { signal: 'approve', timeout: '1m' });
    const json = await pipelines.start(p, [], { workflowId: t.uid('cli-json') });
    expect(await tflow(json.workflowId, 'approve', '{"ok":true}')).toBe(
      `sent signal "approve" to ${json.workflowId}`,
    );
    expect((await json.result()).output).toEqual({ ok: true });
    const text = await pipelines.start(p, [], { workflowId: t.uid('cli-text') });
    await tflow(text.workflowId, 'approve', 'looks good');
    expect((await text.result()).output).toBe('looks good');
    await expect(tflow(text.workflowId, 'approve')).rejects.toThrow(
      `cannot send signal "approve" to run "${text.workflowId}": it is completed`,
    );
  });

  it('prints JSON with --json, as every server command does', async () => {
    const p = pipeline('cli-approval', { steps }).waitFor('approval', { signal: 'approve', timeout: '1m' });
    const run = await pipelines.start(p, [], { workflowId: t.uid('cli-json-out') });
    const out = await tflow(run.workflowId, 'approve', '{"ok":true}', '--json');
    expect(JSON.parse(out)).toEqual({ ok: true, signalled: run.workflowId, signal: 'approve' });
    expect((await run.result()).output).toEqual({ ok: true });
  });
});

describe('chains', () => {
  it('.then starts the next run with the output, linked, after a delay; a jobId dedupes it', async () => {
    const next = pipeline('chained', { steps }).step('b');
    const jobId = t.uid('chained');
    const first = pipeline('chain-first', { steps }).step('a').then(next, { delay: '1s', jobId });
    const handle = await pipelines.start(first, [1], { workflowId: t.uid('chain-first') });
    const result = await handle.result();
    expect(result.output).toBe(2);
    expect(result.chained).toEqual([{ pipeline: 'chained', workflowId: jobId, runId: expect.any(String) }]);
    const chained = t.client.workflow.getHandle(jobId);
    const progress = await chained.query('progress');
    expect(progress).toMatchObject({ waiting: [{ step: 'then-delay', kind: 'sleep' }] });
    expect((await chained.result()).output).toBe(20);
    const d = await chained.describe();
    expect(d.memo?.[CHAINED_FROM_MEMO]).toBe(handle.workflowId);
    expect(d.parentExecution?.workflowId).toBe(handle.workflowId);

    // The same jobId again: the chain is not started twice.
    const again = await pipelines.start(first, [5], { workflowId: t.uid('chain-again') });
    expect((await again.result()).chained).toEqual([{ pipeline: 'chained', workflowId: jobId }]);
    expect(calls.filter((c) => c === 'b')).toHaveLength(1);
  });
});

describe('workflow id templates', () => {
  it('renders {pipeline} and {date}; a template that renders to a running run is refused', async () => {
    release = undefined;
    const p = pipeline(t.uid('tpl'), { steps }).step('held');
    const today = new Date().toISOString().slice(0, 10);
    const handle = await pipelines.start(p, [1], { workflowId: '{pipeline}-{date}' });
    expect(handle.workflowId).toBe(`${p.name}-${today}`);
    await expect(pipelines.start(p, [1], { workflowId: '{pipeline}-{date}' })).rejects.toThrow(
      new RunAlreadyExistsError(`${p.name}-${today}`, '{pipeline}-{date}'),
    );
    await expect(pipelines.start(p, [1], { workflowId: '{pipeline}-{day}' })).rejects.toThrow(
      'workflowId: unknown placeholder "{day}" in "{pipeline}-{day}"; allowed here: {pipeline}, {date}, {time}, {uuid}',
    );
    await waitFor('the held step', async () => (release ? true : undefined));
    release!();
    await handle.result();
  });

  it("a job's runs are named <template rendered>-<nominal time>", async () => {
    const scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
    const jobId = t.uid('job-tpl');
    await scheduler.schedule(pipeline('tpl-job', { steps }).step('a'), {
      jobId,
      workflowId: 'nightly/{pipeline}/{job}',
      cron: '0 2 * * *',
      args: [1],
    });
    try {
      expect((await scheduler.getJob(jobId)) as { workflowId?: string }).toMatchObject({
        workflowId: `nightly/tpl-job/${jobId}`,
      });
      await scheduler.triggerJob(jobId);
      const run = await waitFor('the triggered run in the job history', async () =>
        (await scheduler.getHistory(jobId)).find((r) => r.status === 'completed'),
      );
      expect(run.workflowId).toMatch(
        new RegExp(`^nightly/tpl-job/${jobId}-\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`),
      );
    } finally {
      await scheduler.removeJob(jobId);
    }
  });
});
