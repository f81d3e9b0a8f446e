import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobWriter } from '../../src/activities/alerts/evaluator/retire-watchdogs';
import { publicHolidays } from '../../src/schedule/holidays';

/*
 * What the alert worker's module loads (docs/performance.md, "Jobs at rest": its RSS). The job writer's
 * modules (trigger compiler, holiday calendars, zod: about 17 MB of heap) are loaded only when an upgrade
 * retires a watchdog of the release before, not by every alert worker. Each module is loaded in a fresh
 * `node` (under tsx, from src/), which lists the packages it pulled in.
 */
const root = path.resolve(__dirname, '../..');
const HEAVY = ['date-holidays', 'zod', 'luxon', 'cron-parser', 'cronstrue'];

function packagesLoadedBy(file: string): string[] {
  const script = `
    require(${JSON.stringify(path.join(root, file))});
    const names = new Set();
    for (const k of Object.keys(require.cache)) {
      const m = /.*node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(k);
      if (m) names.add(m[1]);
    }
    process.stdout.write(JSON.stringify([...names]));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

describe('the alert worker loads no job writer', () => {
  it('createWatchdogWorker pulls in none of the trigger compiler, holiday calendars or zod', () => {
    const loaded = packagesLoadedBy('src/worker/watchdog-worker.ts');
    expect(loaded).toContain('@temporalio/worker'); // the probe sees what the module loads
    expect(loaded.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  it('loads the job writer when an upgrade asks for it', async () => {
    const { updateJob, alertQueueUpdate } = await jobWriter();
    expect([typeof updateJob, typeof alertQueueUpdate]).toEqual(['function', 'function']);
  });

  it('the whole worker entry point loads zod and luxon (the probe can see them), not the holiday calendars', () => {
    // `temporal-flow/worker` is what a user's alert worker imports: date-holidays (about 12 MB of a
    // process's RSS with the time zone data it carries) is loaded when a holiday is first compiled.
    const loaded = packagesLoadedBy('src/worker/index.ts');
    expect(loaded).toEqual(expect.arrayContaining(['zod', 'luxon']));
    expect(loaded.filter((p) => p.startsWith('date-holidays') || p.startsWith('moment'))).toEqual([]);
  });

  it('loads the holiday calendars when a holiday is first asked for', () => {
    const holidays = publicHolidays('FR', [2027], 'exclude[0].holidays');
    expect(holidays.map((h) => h.date)).toContain('2027-07-14');
  });
});
