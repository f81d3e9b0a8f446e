/*
 * A dry run: what a job would do in a window, with no server and nothing started. A sync every 10 minutes
 * whose runs take 12 minutes loses every other occurrence to its overlap policy (SKIP, the default); with
 * no worker from 00:25 to 01:05 the run due at 00:30 waits, then stands for the latest occurrence missed
 * (01:00) and runs, as APScheduler's coalesce does. The same job with `coalesce: false` queues every run,
 * and the misfire grace skips the ones too late by their turn.
 *
 *   npx tsx examples/dry-run.ts
 */
import { dryRun, type DryRunOccurrence } from 'temporal-flow';

const window = {
  from: '2027-01-01T00:00:00Z',
  to: '2027-01-01T01:30:00Z',
  runDuration: '12m',
  workersDown: [{ from: '2027-01-01T00:25:00Z', to: '2027-01-01T01:05:00Z' }],
};

function print(title: string, occurrences: DryRunOccurrence[]): void {
  console.log(`\n${title}`);
  for (const o of occurrences) {
    const notes = [
      o.reason ? `(${o.reason})` : '',
      o.startsAt ? `starts ${o.startsAt.slice(11, 16)}` : '',
      o.standsFor ? `stands for ${o.standsFor.slice(11, 16)}` : '',
      o.coalescedInto ? `into the run due ${o.coalescedInto.slice(11, 16)}` : '',
    ].filter(Boolean);
    console.log(`${o.nominal.slice(11, 16)}  ${o.decision.padEnd(9)} ${notes.join(', ')}`);
  }
}

const coalescing = dryRun({ every: '10m', misfireGraceTime: '15m' }, window);
print('every 10m, runs of 12m, coalesce (default), misfireGraceTime 15m:', coalescing.occurrences);
console.log(coalescing.totals);

const queued = dryRun({ every: '10m', coalesce: false, misfireGraceTime: '15m' }, window);
print('the same with coalesce: false (BUFFER_ALL):', queued.occurrences);
console.log(queued.totals);
