/**
 * temporal-flow's test kit: run your pipelines on Temporal's time-skipping test server, with steps
 * replaced or wrapped per test.
 *
 * ```ts
 * import { createPipelineTestEnv } from 'temporal-flow/testing';
 *
 * const t = await createPipelineTestEnv();
 * const result = await t.run(etl, ['eu'], { steps, replace: { load: async () => 0 } });
 * await t.teardown();
 * ```
 */
export { createPipelineTestEnv, testSteps } from './pipeline-test-env';
export type { PipelineTestEnv, PipelineTestEnvOptions, TestRunOptions } from './pipeline-test-env';
export { ensureTestServer, projectTestServerPath, TEST_SERVER_BIN_VERSION } from './test-server';
export { TestServerNotFoundError } from './errors';
