/*
 * Checks a kept history again (the checker keeps one beside the steps' log when it finds a violation):
 *
 *   npx tsx test/checker/recheck.ts /tmp/tflow-checker-XXXX/history.json
 *
 * For working on the invariants without replaying the run. Prints the same report as the checker.
 */
import { readFileSync } from 'node:fs';
import type { JobRun } from '../../src/client/runs/run-types';
import { checkHistory, report } from './invariants';
import type { History } from './history';
import { jobRunsInLog } from './runner';

const file = process.argv[2];
if (!file) throw new Error('usage: recheck.ts <history.json>');
const raw = JSON.parse(readFileSync(file, 'utf8')) as Omit<History, 'killedAt'> & {
  killedAt: [number, number][];
};
const dates = ['scheduledAt', 'startedAt', 'closedAt', 'standsFor', 'judgedAt'] as const;
for (const job of raw.jobs)
  job.runs = job.runs.map((r) => {
    const run = { ...r } as Record<string, unknown>;
    for (const k of dates) if (typeof run[k] === 'string') run[k] = new Date(run[k]);
    return run as unknown as JobRun;
  });
const history: History = { ...raw, killedAt: new Map(raw.killedAt) };
// A history kept before the read-back recorded what it never listed: work it out from the steps' log.
if (history.unread === undefined) {
  const listed = new Set(history.jobs.flatMap((j) => j.runs.map((r) => r.workflowId)));
  history.unread = [...jobRunsInLog(history.jobs, history.steps)].filter((id) => !listed.has(id));
}
console.log(report(history, checkHistory(history), `npx tsx test/checker/recheck.ts ${file}`));
