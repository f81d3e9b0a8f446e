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
 *
 * `createScheduleTestEnv({ start, steps })` runs your jobs (the options `PipelineScheduler` takes) and
 * your real steps on a simulated server in virtual time: `advance('1y')` takes seconds.
 *
 * `dryRun(job, { from, to, runDuration?, workersDown? })` lists what a job would do in a window, with no
 * server (the same function as the main package's).
 */
export { createPipelineTestEnv, testSteps } from './pipeline-test-env';
export type { PipelineTestEnv, PipelineTestEnvOptions, TestRunOptions } from './pipeline-test-env';
export { ensureTestServer, projectTestServerPath, TEST_SERVER_BIN_VERSION } from './test-server';
export { NotInVirtualTimeError, TestServerNotFoundError } from './errors';
export { createScheduleTestEnv, type ScheduleTestEnv } from './schedule-env/schedule-env';
export type {
  AttemptRecord,
  CapturedAlert,
  OccurrenceOutcome,
  OccurrenceRecord,
  OccurrenceSkipReason,
  RunRecord,
  RunSource,
  ScheduleTestEnvOptions,
  StepAttemptInfo,
  StepDuration,
  StepRecord,
  VirtualDeadLetter,
  VirtualSpan,
} from './schedule-env/schedule-env-types';
// The dry run is pure (no server): the main package exports it too; here beside the rest of the test kit.
export { dryRun, type DryRunJob } from '../client/jobs/job-dry-run';
export type { DryRunOptions, DryRunOccurrence, JobDryRun } from '../schedule/dry-run-types';
