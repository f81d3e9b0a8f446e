/*
 * The schedule test environment (temporal-flow/testing, createScheduleTestEnv) against its targets, with
 * Temporal's time-skipping test server beside it as the baseline for runs:
 * - a year of an hourly job with a 2-step pipeline (8,760 runs): target under 60 s on 2 cores;
 * - five years of a daily job with a DST policy (Europe/Paris, gap shift, overlap once): target under 10 s;
 * - the baseline: the same 2-step pipeline run one run after the other on the time-skipping test server
 *   (createPipelineTestEnv), `--ts-runs` of them, per run; the figure for 8,760 runs is that times 8,760.
 * Wall time on this machine, whatever else it runs: printed, never asserted.
 *
 *   npm run bench -- schedule-env
 *   npx tsx bench/schedule-env.bench.ts --ts-runs 100
 */
import os from 'node:os';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { pipeline } from '../src/pipeline';
import { createPipelineTestEnv, createScheduleTestEnv } from '../src/testing/index';
import { intArg, reportRows, type SummaryRow } from './summary';

const TS_RUNS = intArg('ts-runs', 100);
const BENCH = 'schedule-env';
const steps = {
  async extract(region: string) {
    return [`${region}-1`, `${region}-2`];
  },
  async load(rows: string[]) {
    return rows.length;
  },
};
const etl = pipeline('bench-etl', { steps }).step('extract').step('load');

async function hourlyYear(): Promise<{ ms: number; runs: number }> {
  const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
  const started = performance.now();
  await env.schedule(etl, { cron: '0 * * * *', jobId: 'hourly', args: ['eu'] });
  await env.advanceTo('2028-01-01T00:00:00Z');
  const ms = performance.now() - started;
  const runs = env.runs('hourly').filter((r) => r.status === 'completed' && r.steps.length === 2).length;
  return { ms, runs };
}

async function dailyFiveYears(): Promise<{ ms: number; runs: number }> {
  const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, timezone: 'Europe/Paris' });
  const started = performance.now();
  await env.schedule(etl, {
    cron: '30 2 * * *',
    jobId: 'daily',
    args: ['eu'],
    dst: { gap: 'shift', overlap: 'once' },
  });
  await env.advanceTo('2032-01-01T00:00:00Z');
  const ms = performance.now() - started;
  return { ms, runs: env.runs('daily').filter((r) => r.status === 'completed').length };
}

async function timeSkippingPerRun(): Promise<number> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const kit = await createPipelineTestEnv();
  try {
    return await kit.withWorker({ steps }, async (client) => {
      await (await client.start(etl, ['eu'])).result(); // warm-up
      const started = performance.now();
      for (let i = 0; i < TS_RUNS; i++) await (await client.start(etl, ['eu'])).result();
      return (performance.now() - started) / TS_RUNS;
    });
  } finally {
    await kit.teardown();
  }
}

async function main(): Promise<void> {
  console.log(
    `${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  const hourly = await hourlyYear();
  console.log(
    `hourly year: ${hourly.runs} runs of 2 steps in ${(hourly.ms / 1000).toFixed(1)} s (target < 60 s)`,
  );
  const daily = await dailyFiveYears();
  console.log(
    `daily 5 years, DST policy: ${daily.runs} runs in ${(daily.ms / 1000).toFixed(1)} s (target < 10 s)`,
  );
  const perRun = await timeSkippingPerRun();
  const projected = (perRun * 8760) / 1000;
  console.log(
    `time-skipping test server: ${perRun.toFixed(1)} ms a run (${TS_RUNS} runs in a row): 8,760 runs ~ ${projected.toFixed(0)} s`,
  );
  const rows: SummaryRow[] = [
    {
      bench: BENCH,
      metric: 'a year of an hourly 2-step job (8,760 runs), wall time',
      unit: 's',
      ours: 'schedule test environment',
      oursValue: hourly.ms / 1000,
      baseline: `time-skipping test server (${TS_RUNS} runs x 87.6)`,
      baselineValue: projected,
      ratio: hourly.ms / 1000 / projected,
    },
    {
      bench: BENCH,
      metric: 'five years of a daily job with a DST policy, wall time',
      unit: 's',
      ours: 'schedule test environment',
      oursValue: daily.ms / 1000,
    },
    {
      bench: BENCH,
      metric: 'one scheduled 2-step run, wall time',
      unit: 'ms',
      ours: 'schedule test environment (hourly year / 8,760)',
      oursValue: hourly.ms / hourly.runs,
      baseline: 'time-skipping test server',
      baselineValue: perRun,
      ratio: hourly.ms / hourly.runs / perRun,
    },
  ];
  reportRows(rows);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
