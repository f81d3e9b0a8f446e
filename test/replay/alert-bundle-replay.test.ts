import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { buildAlertWorkflowBundle } from '../../src/worker/workflow-bundle';
import { readHistoryFile } from './history-file';

/*
 * The alert worker runs a bundle of its own (src/workflows/alert-workflows.ts: the evaluator, the
 * deliveries, the per-job watchdogs of the release before), not the pipeline workers' one: the histories
 * its workflows recorded with the whole bundle replay with it, and it holds no interpreter.
 */
const dir = path.join(__dirname, 'histories');
/** The recorded histories of workflows that run on the alert queue (not the runs that raise alerts). */
const alertFiles = readdirSync(dir).filter((f) => /^(alert-|job-watchdog)/.test(f) && f.endsWith('.json'));
let code: string;

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
  } catch {
    // already installed by another test of this process
  }
  ({ code } = await buildAlertWorkflowBundle());
}, 120_000);

describe('the alert worker bundle', () => {
  it('holds the alert workflows and not the interpreter', () => {
    for (const name of ['tflowAlertEvaluatorWorkflow', 'tflowAlertDeliveryWorkflow', 'jobWatchdogWorkflow'])
      expect(code).toContain(name);
    // webpack names each module by its path: the pipeline workers' bundle names the interpreter's.
    expect(readFileSync(inject('workflowBundlePath'), 'utf8')).toContain('workflows/pipeline-workflow');
    expect(code).not.toContain('workflows/pipeline-workflow');
    expect(code).not.toContain('workflows/run/');
  });

  it('has the alert histories to replay', () => {
    expect(alertFiles.sort()).toEqual(
      expect.arrayContaining(['alert-delivery-silent.json', 'alert-evaluator.json', 'job-watchdog.json']),
    );
  });

  it.each(alertFiles)('replays %s', async (file) => {
    const history = await readHistoryFile(path.join(dir, file));
    await expect(
      Worker.runReplayHistory({ workflowBundle: { code } }, history, `replay-${file.replace(/\.json$/, '')}`),
    ).resolves.toBeUndefined();
  });
});
