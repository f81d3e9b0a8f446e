import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DefaultLogger, Runtime, type NativeConnection } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { TemporalFlowError } from '../../src/errors';
import { createWorker } from '../../src/worker/create-worker';
import { rateLimitsOf } from '../../src/worker/rate-limited-workers';
import { pipeline } from '../../src/pipeline';
import { InvalidArgumentError } from '../../src/errors';
import { PipelineSpecError } from '../../src/pipeline/errors';
import {
  buildWorkflowBundle,
  lacksInterceptorModules,
  nativeSyntax,
  PREBUILT_WORKFLOW_BUNDLE_PATH,
  prebuiltWorkflowBundle,
  withNativeSyntax,
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

  it('refuses a semaphoreTaskQueue that is not a queue name before connecting anywhere', async () => {
    for (const bad of ['', '  ', 7]) {
      const err = await createWorker({
        connection: {} as NativeConnection,
        taskQueue: 'q',
        steps: {},
        semaphoreTaskQueue: bad as string,
      }).catch((e: unknown) => e);
      expect(err).toEqual(
        new InvalidArgumentError(
          'semaphoreTaskQueue',
          `semaphoreTaskQueue must be a task queue name (a non-empty string), got ${typeof bad === 'string' ? JSON.stringify(bad) : bad}`,
        ),
      );
    }
  });

  it('collects the rate-limited steps of its pipelines, one rate per activity', () => {
    const steps = { a: async () => 1, call: async () => 2 };
    const p = pipeline('p', { steps }).step('a').map('call', { rateLimit: '60/m' });
    const same = pipeline('same', { steps }).step('call', { rateLimit: 1 });
    const q = pipeline('q', { steps }).step('call', { id: 'again', rateLimit: 2 });
    expect(rateLimitsOf([p, same], steps)).toEqual(new Map([['call', 1]]));
    expect(() => rateLimitsOf([p, q], steps)).toThrow(
      new InvalidArgumentError(
        'pipelines',
        'activity "call" is rate limited at 1/s by pipeline "p" step "call" and at 2/s by pipeline "q" step "again": one activity has one rate (its own task queue); give both steps the same rateLimit',
      ),
    );
    expect(() => rateLimitsOf([p], { a: steps.a })).toThrow(
      'pipeline "p" step "call" is rate limited but its activity "call" is not among this worker\'s steps',
    );
  });

  it('refuses a rate that is not one, naming the step', () => {
    for (const bad of ['10', '10/d', '0/s', -1, 'fast']) {
      expect(() => pipeline('p').step('a', { rateLimit: bad })).toThrow(
        new PipelineSpecError(
          'steps[0].rateLimit',
          `steps[0].rateLimit ${JSON.stringify(bad)} is not a rate: write '<count>/s', '<count>/m' or '<count>/h' (e.g. '10/s'), or a number per second greater than zero`,
        ),
      );
    }
    expect(pipeline('p').step('a', { rateLimit: '0.5/s' }).spec.steps[0]).toMatchObject({
      rateLimitPerSecond: 0.5,
    });
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

  it('compiles our sources at ES2022, as the build ships them: no helper stands in for object spread', async () => {
    const noop = () => undefined;
    const logger = { trace: noop, debug: noop, info: noop, log: noop, warn: noop, error: console.error };
    const { code } = await buildWorkflowBundle(logger);
    expect(code).toContain('idempotency-interceptor');
    expect(code).toContain('function progressDetails(');
    // What the SDK bundler's ES2017 target writes for `{ ...a }` and `const { x, ...rest } = a`.
    expect(code).not.toMatch(/function _object_spread\(/);
    expect(code).not.toMatch(/function _object_without_properties\(/);
  }, 60_000);

  it('sets the target of the swc rule only, keeping the rest of the config', () => {
    const swc = {
      loader: '/x/node_modules/swc-loader/index.js',
      options: { sourceMap: true, jsc: { target: 'es2017', parser: { syntax: 'typescript' } } },
    };
    const pre = { test: /\.js$/, enforce: 'pre' as const, use: ['source-map-loader'] };
    const config = { mode: 'development' as const, module: { rules: [pre, { test: /\.ts$/, use: swc }] } };
    expect(nativeSyntax(config)).toEqual({
      mode: 'development',
      module: {
        rules: [
          pre,
          {
            test: /\.ts$/,
            use: {
              ...swc,
              options: { sourceMap: true, jsc: { target: 'es2022', parser: { syntax: 'typescript' } } },
            },
          },
        ],
      },
    });
    expect(swc.options.jsc.target).toBe('es2017'); // the input is not changed
    expect(nativeSyntax({ mode: 'production' })).toEqual({ mode: 'production' });
  });

  it("keeps the user's bundler options and runs their webpack hook after ours, on the ES2022 config", () => {
    const swc = { loader: '/x/swc-loader/index.js', options: { jsc: { target: 'es2017' } } };
    const config = { module: { rules: [{ test: /\.ts$/, use: swc }] } };
    const seen: unknown[] = [];
    const options = withNativeSyntax({
      ignoreModules: ['fs'],
      webpackConfigHook: (c) => {
        seen.push(c);
        return { ...c, devtool: false };
      },
    });
    expect(options.ignoreModules).toEqual(['fs']);
    const out = options.webpackConfigHook!(config);
    expect(seen).toEqual([nativeSyntax(config)]);
    expect(out).toEqual({ ...nativeSyntax(config), devtool: false });
    expect(withNativeSyntax(undefined).webpackConfigHook!(config)).toEqual(nativeSyntax(config));
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
