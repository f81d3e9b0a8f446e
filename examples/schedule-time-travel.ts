/*
 * The schedule test environment (`temporal-flow/testing`): a job's year in seconds, on a simulated Temporal
 * server in virtual time, with the real steps. No server is needed.
 *
 *   npx tsx examples/schedule-time-travel.ts
 *
 * 1. A nightly ETL in Europe/Paris at 02:30 with a 10-minute misfire grace and a dead-man switch of 26 h:
 *    the 02:30 of the spring-forward night does not exist, and a deploy keeps the workers down from 02:00
 *    to 02:45 on the night after. What runs, what is skipped and why, which alerts are raised.
 * 2. A weekly job `30 2 * * 0` in America/Santiago, a year of it: with the server's raw reading (`dst: {}`)
 *    it loses the first Sunday of September (Temporal reads that day's weekday at a midnight that does not
 *    exist); as temporal-flow schedules it by default (the misread weekday corrected) it keeps it.
 */
import { pipeline } from 'temporal-flow';
import { createScheduleTestEnv } from 'temporal-flow/testing';

const loaded: string[] = [];
const steps = {
  async extract(region: string) {
    return [`${region}-row-1`, `${region}-row-2`];
  },
  async load(rows: string[]) {
    loaded.push(...rows);
    return rows.length;
  },
  async page() {
    return 'paged'; // an alert target: the environment captures alerts, it never calls or sends them
  },
};
const etl = pipeline('nightly-etl', { steps }).step('extract').step('load');

async function paris(): Promise<void> {
  const env = createScheduleTestEnv({ start: '2027-03-26T00:00:00Z', steps, timezone: 'Europe/Paris' });
  await env.schedule(etl, {
    cron: '30 2 * * *',
    jobId: 'etl-paris',
    args: ['eu'],
    misfireGraceTime: '10m',
    onMissed: 'page',
    expectSuccessWithin: '26h',
    onSilent: 'page',
  });
  env.workersDown({ from: '2027-03-29T00:00:00Z', to: '2027-03-29T00:45:00Z' }); // 02:00-02:45 CEST
  await env.advanceTo('2027-03-31T00:00:00Z');
  for (const o of env.occurrences('etl-paris')) {
    console.log(`paris ${o.nominal} ${o.outcome}${o.reason ? ` (${o.reason})` : ''}`);
  }
  for (const a of env.alerts('etl-paris')) console.log(`paris alert ${a.event.kind} at ${a.event.at}`);
  console.log(`paris rows loaded: ${loaded.length}`);
}

async function santiago(raw: boolean): Promise<void> {
  const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, timezone: 'America/Santiago' });
  await env.schedule(etl, {
    cron: '30 2 * * 0',
    jobId: 'weekly',
    args: ['cl'],
    ...(raw ? { dst: {} } : {}), // dst: {} keeps the server's raw reading
  });
  await env.advanceTo('2028-01-01T00:00:00Z');
  const sundays = env.occurrences('weekly').filter((o) => o.outcome === 'ran');
  const september = sundays.filter((o) => o.nominal.startsWith('2027-09-0')).map((o) => o.nominal);
  console.log(
    `santiago ${raw ? "the server's raw reading (dst: {})" : 'by default'}: ${sundays.length} Sundays ran; first week of September: ${september.join(', ') || 'none'}`,
  );
}

async function main(): Promise<void> {
  const started = Date.now();
  await paris();
  await santiago(true);
  await santiago(false);
  console.log(`done in ${Date.now() - started} ms`);
}

if (require.main === module) {
  void main().catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
}
