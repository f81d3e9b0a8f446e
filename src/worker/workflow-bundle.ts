/*
 * The workflow bundle: the interpreter and its interceptor modules, webpacked into the code a worker's
 * sandbox runs. `npm run build` writes it once into dist/ (build-workflow-bundle.ts), so that a worker
 * started from the package runs no webpack; from source (tsx, tests) createWorker bundles at start.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  bundleWorkflowCode,
  type BundleOptions,
  type Logger,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';

/** Whether this module runs from source (`.ts`, through tsx or vitest) rather than from the build. */
const FROM_SOURCE = __filename.endsWith('.ts');

/**
 * Path of the workflows entry point: `src/workflows/index.ts` when running from source (tsx, tests),
 * `dist/workflows/index.js` when built.
 */
export const WORKFLOWS_PATH = path.resolve(__dirname, '../workflows', FROM_SOURCE ? 'index.ts' : 'index.js');

/**
 * Path of the alert worker's workflows (`src/workflows/alert-workflows.ts`, or its build): the evaluator,
 * the deliveries and the retired watchdogs, without the interpreter.
 */
export const ALERT_WORKFLOWS_PATH = path.resolve(
  __dirname,
  '../workflows',
  FROM_SOURCE ? 'alert-workflows.ts' : 'alert-workflows.js',
);

/** File name of the interceptor module, the mark a bundle that includes it carries. */
const INTERCEPTOR_FILE = 'idempotency-interceptor';

/**
 * Workflow interceptor modules temporal-flow needs in the workflow bundle (the occurrence header behind
 * `stepIdempotencyKey()`). createWorker adds them when it bundles; pass them to `bundleWorkflowCode`'s
 * `workflowInterceptorModules` when you build a bundle yourself.
 */
export const WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  path.resolve(__dirname, '../workflows/idempotency', `${INTERCEPTOR_FILE}${FROM_SOURCE ? '.ts' : '.js'}`),
];

/** File name of the module that names runs and steps on their spans, the mark of a traced bundle. */
const TRACING_INTERCEPTOR_FILE = 'tracing-interceptor';

/**
 * The workflow interceptor modules a traced worker (`createWorker({ tracing })`) adds after
 * {@link WORKFLOW_INTERCEPTOR_MODULES}: Temporal's OpenTelemetry one (the run's span, child of the
 * starter's; a span per step scheduled, whose context the step receives in its headers), then ours (the
 * run's pipeline, job and nominal time on its span). Only headers and spans: runs recorded without them
 * replay unchanged (test/replay/). createWorker adds them when it bundles; add them to
 * `workflowInterceptorModules` when you build a bundle for a traced worker yourself.
 */
export const TRACING_WORKFLOW_INTERCEPTOR_MODULES: readonly string[] = [
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
  path.resolve(
    __dirname,
    '../workflows/tracing',
    `${TRACING_INTERCEPTOR_FILE}${FROM_SOURCE ? '.ts' : '.js'}`,
  ),
];

/**
 * Where `npm run build` writes the prebuilt bundle: `dist/workflow-bundle.js`. From source this path
 * (`src/workflow-bundle.js`) never exists, so a worker started with tsx bundles the code it runs.
 */
export const PREBUILT_WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '..', 'workflow-bundle.js');

/** The prebuilt bundle of the alert worker (createWatchdogWorker): `dist/alert-workflow-bundle.js`. */
export const PREBUILT_ALERT_WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '..', 'alert-workflow-bundle.js');

/** The prebuilt bundle of a traced worker (with {@link TRACING_WORKFLOW_INTERCEPTOR_MODULES}): `dist/workflow-bundle-traced.js`. */
export const PREBUILT_TRACED_WORKFLOW_BUNDLE_PATH = path.resolve(
  __dirname,
  '..',
  'workflow-bundle-traced.js',
);

/**
 * Modules a worker's reusable V8 context loads once and shares between runs (the SDK's `preloadModules`),
 * rather than evaluating them again for every workflow: the interpreter, everything it imports, and the
 * interceptor module. They hold no per-run state at module scope (defined signals and queries, activity and
 * sink proxies, pure functions and classes); per-run state lives in the workflow functions and in the
 * interceptor factory's closure. Measured on the 2-core machine: workflow-thread CPU over a hand-written
 * workflow +1.35 -> +0.73 ms per run. Pass them as `preloadModules` when you build a bundle yourself.
 */
export const PRELOADED_WORKFLOW_MODULES: readonly string[] = [
  WORKFLOWS_PATH,
  ...WORKFLOW_INTERCEPTOR_MODULES,
];

/**
 * Bundles the workflows with temporal-flow's interceptor modules (what a worker runs); `traced`: with
 * {@link TRACING_WORKFLOW_INTERCEPTOR_MODULES} too (what a worker with `tracing` runs).
 */
export async function buildWorkflowBundle(
  logger?: Logger,
  opts: { traced?: boolean } = {},
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [
      ...WORKFLOW_INTERCEPTOR_MODULES,
      ...(opts.traced ? TRACING_WORKFLOW_INTERCEPTOR_MODULES : []),
    ],
    preloadModules: [...PRELOADED_WORKFLOW_MODULES],
    // Line mappings without the sources' text: stack traces still name our files and lines, and the bundle
    // halves (1.98 -> 1.05 MB; idle worker RSS about 14 MB less). Only the SDK's `showStackTraceSources`
    // (off by default) would have shown the text.
    webpackConfigHook: (config) => ({ ...nativeSyntax(config), devtool: 'inline-nosources-source-map' }),
    ...(logger ? { logger } : {}),
  });
}

/** Bundles the alert worker's workflows ({@link ALERT_WORKFLOWS_PATH}): no interceptor, no preload needed. */
export async function buildAlertWorkflowBundle(logger?: Logger): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: ALERT_WORKFLOWS_PATH,
    webpackConfigHook: (config) => ({ ...nativeSyntax(config), devtool: 'inline-nosources-source-map' }),
    ...(logger ? { logger } : {}),
  });
}

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/**
 * A webpack config hook: TypeScript sources compiled for the sandbox at ES2022, the level `npm run build`
 * ships (tsconfig's target), rather than at the SDK bundler's ES2017, whose helpers stand in for object
 * spread and rest (`_object_spread`, `_object_without_properties`): the interpreter spreads objects on
 * every step, and a V8 CPU profile of a run from source put ~1 ms per run in those helpers. Node's V8 runs
 * ES2022 natively, so a bundle made from source now runs the code a built one does.
 */
export function nativeSyntax(config: WebpackConfig): WebpackConfig {
  const rules = config.module?.rules?.map((rule) => {
    if (!rule || typeof rule !== 'object' || !rule.use || typeof rule.use !== 'object') return rule;
    if (Array.isArray(rule.use)) return rule;
    const use = rule.use as { loader?: string; options?: { jsc?: Record<string, unknown> } };
    if (!use.loader?.includes('swc-loader')) return rule;
    return {
      ...rule,
      use: { ...use, options: { ...use.options, jsc: { ...use.options?.jsc, target: 'es2022' } } },
    };
  });
  return rules ? { ...config, module: { ...config.module, rules } } : config;
}

/** `bundlerOptions` whose webpack hook applies {@link nativeSyntax} first, then the user's own hook. */
export function withNativeSyntax(
  options: WorkerOptions['bundlerOptions'],
): NonNullable<WorkerOptions['bundlerOptions']> {
  return {
    ...options,
    webpackConfigHook: (config) => {
      const ours = nativeSyntax(config);
      return options?.webpackConfigHook?.(ours) ?? ours;
    },
  };
}

/**
 * Bundles at start what `Worker.create` would bundle from `workflowsPath` with these options (the user's
 * interceptor modules, then ours; the data converter's paths; the bundler options with ES2022 syntax), once
 * for the worker and its semaphore worker (create-worker.ts) rather than once per SDK worker.
 */
export async function bundleAtStart(
  options: Pick<WorkerOptions, 'bundlerOptions' | 'dataConverter' | 'plugins'> & {
    workflowModules: readonly string[];
    logger: Logger;
  },
): Promise<{ code: string }> {
  const bundler = withNativeSyntax(options.bundlerOptions);
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: [...options.workflowModules],
    logger: options.logger,
    ...(options.dataConverter?.payloadConverterPath
      ? { payloadConverterPath: options.dataConverter.payloadConverterPath }
      : {}),
    ...(options.dataConverter?.failureConverterPath
      ? { failureConverterPath: options.dataConverter.failureConverterPath }
      : {}),
    ...(bundler.ignoreModules ? { ignoreModules: bundler.ignoreModules } : {}),
    preloadModules: [...(bundler.preloadModules ?? []), ...PRELOADED_WORKFLOW_MODULES],
    ...(bundler.webpackConfigHook ? { webpackConfigHook: bundler.webpackConfigHook } : {}),
    ...(options.plugins ? { plugins: options.plugins } : {}),
  });
  return { code };
}

/** The bundle shipped in dist/ (the traced one when `traced`), when this is a build that has one; undefined from source. */
export function prebuiltWorkflowBundle(traced = false): { codePath: string } | undefined {
  const codePath = traced ? PREBUILT_TRACED_WORKFLOW_BUNDLE_PATH : PREBUILT_WORKFLOW_BUNDLE_PATH;
  if (FROM_SOURCE || !existsSync(codePath)) return undefined;
  return { codePath };
}

/** The alert worker's bundle shipped in dist/, when this is a build that has one; undefined from source. */
export function prebuiltAlertWorkflowBundle(): { codePath: string } | undefined {
  if (FROM_SOURCE || !existsSync(PREBUILT_ALERT_WORKFLOW_BUNDLE_PATH)) return undefined;
  return { codePath: PREBUILT_ALERT_WORKFLOW_BUNDLE_PATH };
}

/**
 * Whether a bundle lacks temporal-flow's workflow interceptor modules: webpack names each module it
 * includes by its path, so a bundle built with them holds the interceptor's file name.
 */
export function lacksInterceptorModules(bundle: NonNullable<WorkerOptions['workflowBundle']>): boolean {
  return !bundleCode(bundle).includes(INTERCEPTOR_FILE);
}

/** Whether a bundle lacks {@link TRACING_WORKFLOW_INTERCEPTOR_MODULES} (its runs would make no spans). */
export function lacksTracingModules(bundle: NonNullable<WorkerOptions['workflowBundle']>): boolean {
  const code = bundleCode(bundle);
  return !code.includes(TRACING_INTERCEPTOR_FILE) || !code.includes('interceptors-opentelemetry');
}

function bundleCode(bundle: NonNullable<WorkerOptions['workflowBundle']>): string {
  return 'code' in bundle ? bundle.code : readFileSync(bundle.codePath, 'utf8');
}
