/*
 * The model-based checker (issue 17, item 3): a seeded mix of jobs and pipelines, concurrent client calls
 * and faults against a real Temporal and real worker processes, then the invariants of
 * test/checker/invariants.ts against a model computed from what was asked. See docs/testing.md.
 *
 *   npx vitest run test/checker/checker.test.ts              # the short run of `npm test` (60 s of ops)
 *   npm run check:model                                      # the long run: 30 min, a fresh seed
 *   FUZZ_SEED=123 CHECK_DURATION=90s npx vitest run test/checker/checker.test.ts   # replay a seed
 *
 * Here it owns a dev server on a SQLite file (SIGKILLed and restarted); under `npm run test:cluster` it
 * runs on the PostgreSQL cluster, which it SIGKILLs and whose PostgreSQL it stops.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { readEnv } from '../../src/config';
import { parseDuration } from '../../src/parse/duration';
import { alertEvaluatorWorkflowId } from '../../src/workflows/alerts/evaluator-defs';
import { FUZZ_SEED } from '../helpers/fuzz';
import { makePlan } from './generator';
import { checkHistory, report } from './invariants';
import { QUIESCE_MS } from './history';
import { runPlan } from './runner';
import { AlertReceiver } from './receiver';
import { CheckerWorkers, ClusterServer, OwnDevServer, type ServerControl } from './servers';

const durationText = process.env.CHECK_DURATION ?? '60s';
/**
 * Whether the run SIGKILLs the embedded dev server (`CHECK_SERVER_FAULTS=on`, as `npm run check:model`
 * sets it; a cluster always takes its server faults). Off in the short run of `npm test`: under it the
 * checker meets open findings (docs/testing.md: two runs of a maxInstances-1 job at once when Temporal was
 * killed 6 ms after starting one; alerts around a restart), which would make the suite fail now and then
 * on what is already reported; the long run keeps them in view.
 */
const devServerFaults = process.env.CHECK_SERVER_FAULTS === 'on';
const DURATION_MS = parseDuration(durationText, 'CHECK_DURATION');
/** Where every run writes its verdict and report (`checker-<seed>-<duration>.txt`; gitignored). */
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch((err: unknown) => console.error(err));
});

describe('model-based checker', () => {
  it(
    `keeps every invariant over ${durationText} of seeded operations and faults (seed ${FUZZ_SEED})`,
    async () => {
      const startedAt = Date.now();
      // The machine's load (1-minute average) once a minute: a run's figures mean little without it.
      const loads = [loadavg()[0]!];
      const sampling = setInterval(() => loads.push(loadavg()[0]!), 60_000);
      cleanups.push(() => Promise.resolve(clearInterval(sampling)));
      const layout = inject('clusterLayout' as never) as
        ConstructorParameters<typeof ClusterServer>[0] | undefined;
      const temporalCli = inject('temporalCli') || readEnv().temporalCli || 'temporal';
      const server: ServerControl = layout
        ? new ClusterServer(layout, inject('temporalAddress'))
        : await OwnDevServer.start(temporalCli);
      cleanups.push(() => server.close());
      const dir = mkdtempSync(path.join(tmpdir(), 'tflow-checker-'));
      writeFileSync(path.join(dir, 'steps.log'), '');
      const receiver = await AlertReceiver.start();
      cleanups.push(() => receiver.stop());
      const taskQueue = `checker-${Date.now().toString(36)}`;
      const workers = new CheckerWorkers({
        address: server.address,
        namespace: server.namespace,
        taskQueue,
        bundlePath: inject('workflowBundlePath'),
        dir,
      });
      cleanups.push(() => workers.stopAll());

      const plan = makePlan({
        seed: FUZZ_SEED,
        durationMs: DURATION_MS,
        serverFaults: layout || devServerFaults ? server.faults : [],
      });
      console.info(`checker: seed ${FUZZ_SEED}, ${plan.length} planned operations over ${durationText}`);
      const history = await runPlan({
        seed: FUZZ_SEED,
        durationMs: DURATION_MS,
        plan,
        server,
        workers,
        taskQueue,
        dir,
        alertUrl: receiver.url,
        alerts: receiver.deliveries,
        temporalCli,
        log: (line) => console.info(`checker: ${line}`),
      });
      const result = checkHistory(history);
      const replay = `FUZZ_SEED=${FUZZ_SEED} CHECK_DURATION=${durationText} npx vitest run test/checker/checker.test.ts`;
      const text = report(history, result, replay);
      console.info(text);
      // The verdict outlives the console: one file per seed and duration, passed or failed.
      const verdict = [
        `${result.violations.length === 0 ? 'PASSED' : 'FAILED'}: seed ${FUZZ_SEED}, ${durationText}, ${layout ? 'PostgreSQL cluster' : 'dev server'} at ${server.address}, ${new Date(startedAt).toISOString()} to ${new Date().toISOString()}, load average (1 min, sampled each minute) ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
        text,
        result.violations.length === 0 ? '' : `history kept in ${dir}`,
      ].join('\n');
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(path.join(ARTIFACTS, `checker-${FUZZ_SEED}-${durationText}.txt`), `${verdict}\n`);
      // The history of a passing run too, for `recheck.ts` with a later checker: the 20-minute cluster run
      // at seed 6271 passed while the server's log showed a start it dropped, and without its history the
      // reason it was not flagged could not be read.
      writeFileSync(
        path.join(ARTIFACTS, `checker-${FUZZ_SEED}-${durationText}.history.json`),
        JSON.stringify({ ...history, killedAt: [...history.killedAt] }),
      );
      if (result.violations.length === 0) rmSync(dir, { recursive: true, force: true });
      else {
        // Kept for a look: the history and the steps' log.
        writeFileSync(path.join(dir, 'report.txt'), `${verdict}\n`);
        writeFileSync(
          path.join(dir, 'history.json'),
          JSON.stringify({ ...history, killedAt: [...history.killedAt] }, null, 1),
        );
        // On an I6 violation, the shared alert evaluator's history (since f2f59e3 one per alert queue, not a
        // watchdog per job), which says what it decided and when.
        const connection = await Connection.connect({ address: server.address });
        const client = new Client({ connection, namespace: server.namespace });
        if (result.violations.some((x) => x.invariant === 'I6')) {
          const fetched = await client.workflow
            .getHandle(alertEvaluatorWorkflowId(workers.watchdogTaskQueue))
            .fetchHistory()
            .catch((err: unknown) => ({ error: String(err) }));
          writeFileSync(path.join(dir, 'alert-evaluator.json'), JSON.stringify(fetched, null, 1));
        }
        await connection.close();
        console.info(`checker: history kept in ${dir}`);
      }
      expect(result.violations, text).toEqual([]);
    },
    // The plan runs late on a loaded machine (a 9-min plan took 11.3 min), and the read-back grows with it.
    Math.round(DURATION_MS * 1.5) + QUIESCE_MS + 600_000,
  );
});
