import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime, type NativeConnection } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { TemporalFlowError } from '../../src/errors';
import { createWorker } from '../../src/worker/create-worker';
import {
  lacksInterceptorModules,
  PREBUILT_WORKFLOW_BUNDLE_PATH,
  prebuiltWorkflowBundle,
} from '../../src/worker/workflow-bundle';

describe('createWorker', () => {
  it('refuses a step named like a built-in activity before connecting anywhere', async () => {
    const err = await createWorker({
      connection: {} as NativeConnection,
      taskQueue: 'q',
      steps: { tflowAcquireSlot: async () => 1, fine: async () => 2 },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemporalFlowError);
    expect((err as TemporalFlowError).code).toBe('RESERVED_STEP_NAME');
    expect((err as Error).message).toBe(
      `step name "tflowAcquireSlot" clashes with temporal-flow's built-in activities: rename the step`,
    );
  });
});

describe('the workflow bundle', () => {
  it('tells a bundle with the interceptor modules from one without, by code or by path', () => {
    const withModules = 'var m = { "./dist/workflows/idempotency-interceptor.js": function () {} };';
    expect(lacksInterceptorModules({ code: withModules })).toBe(false);
    expect(lacksInterceptorModules({ code: 'var m = { "./workflows.js": function () {} };' })).toBe(true);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tflow-bundle-'));
    try {
      writeFileSync(path.join(dir, 'a.js'), withModules);
      writeFileSync(path.join(dir, 'b.js'), 'nothing');
      expect(lacksInterceptorModules({ codePath: path.join(dir, 'a.js') })).toBe(false);
      expect(lacksInterceptorModules({ codePath: path.join(dir, 'b.js') })).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('from source there is no prebuilt bundle: createWorker bundles at start', () => {
    expect(PREBUILT_WORKFLOW_BUNDLE_PATH).toBe(path.resolve(__dirname, '../../src/workflow-bundle.js'));
    expect(prebuiltWorkflowBundle()).toBeUndefined();
  });

  it('warns when the workflowBundle it is given lacks the interceptor modules', async () => {
    const warnings: string[] = [];
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => {
        if (entry.level === 'WARN') warnings.push(entry.message);
      }),
    });
    // The fake connection fails Worker.create after the check: only the warning matters here.
    await createWorker({
      connection: {} as NativeConnection,
      taskQueue: 'q',
      steps: {},
      workflowBundle: { code: 'var nothing;' },
    }).catch(() => undefined);
    expect(warnings).toEqual([
      expect.stringContaining("the workflowBundle lacks temporal-flow's workflow interceptor modules"),
    ]);
  });
});
