import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { flowControlWorkflowId } from '../../src/workflows/flow-control/flow-defs';
import { ClientProcesses } from '../helpers/client-processes';
import { WorkerProcesses } from '../helpers/worker-processes';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';
import { BATCH_SIZE, flowPipelines, type FlowPipelineName } from '../fixtures/flow-pipelines';
import { deliveredTwice, readRuns } from '../fixtures/flow-log';

/*
 * "Nothing lost, nothing run twice" for debounce and batch when many senders race: 4 client processes
 * (test/fixtures/flow-client-process.ts) send 100 events each (150 to the batch) at the same moment;
 * afterwards every event was in exactly one run, each run's events share a key, a batch never passed its
 * size, and the batch's flow control, which took 600 events, continued as new (its history is bounded).
 */

const PROCESSES = 4;
const PER_PROCESS = 100;
/** The batch takes more: enough updates to pass its flow control's history limit (1000 events). */
const BATCH_PER_PROCESS = 150;

let t: TestContext;
let dir: string;
let log: string;
const clients = new ClientProcesses('flow-client-process.ts');
const workers = new WorkerProcesses('flow-worker-process.ts');

beforeAll(async () => {
  t = await connectTest('flow-race');
  dir = mkdtempSync(path.join(tmpdir(), 'tflow-flow-race-'));
  log = path.join(dir, 'runs.log');
  await workers.start(t, log);
});
afterAll(async () => {
  await clients.killAll();
  await workers.stopAll();
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends 400 events from 4 processes at once; returns their labels, once each was answered `accepted`. */
async function race(which: FlowPipelineName, prefix: string, perProcess: number): Promise<string[]> {
  const procs = await Promise.all(
    Array.from({ length: PROCESSES }, (_, p) =>
      clients.start([
        inject('temporalAddress'),
        t.namespace,
        t.taskQueue,
        which,
        prefix,
        `${which}${p}`,
        String(perProcess),
      ]),
    ),
  );
  for (const p of procs) p.go();
  const answers = () => procs.flatMap((p) => p.lines.filter((l) => /^(sent|failed) /.test(l)));
  await waitFor(
    'every event answered',
    async () => (answers().length === PROCESSES * perProcess ? true : undefined),
    240_000,
  );
  expect(answers().filter((l) => !l.endsWith(' accepted'))).toEqual([]);
  return answers().map((l) => l.split(' ')[1]!);
}

/** The runs of a pipeline's flow controls whose events carry this test's labels. */
const runsOf = (which: FlowPipelineName, labels: Set<string>) =>
  [...readRuns(log)].filter(
    ([id, events]) =>
      id.startsWith(`tflow-flow:${flowPipelines[which].name}:`) && events.some((e) => labels.has(e)),
  );

describe('debounce and batch with racing senders', () => {
  it(
    `delivers each of ${PROCESSES * PER_PROCESS} events sent at once from ${PROCESSES} processes to a debounce by key in exactly one run`,
    { timeout: 300_000 },
    async () => {
      const prefix = t.uid('deb');
      const sent = new Set(await race('debounce', prefix, PER_PROCESS));
      const delivered = await waitFor(
        'every event in a run',
        async () => {
          const runs = runsOf('debounce', sent);
          return runs.flatMap(([, e]) => e).length >= sent.size ? runs : undefined;
        },
        120_000,
      );
      const events = delivered.flatMap(([, e]) => e);
      expect(deliveredTwice(new Map(delivered))).toEqual([]);
      expect(new Set(events)).toEqual(sent);
      // A run holds the events of one key only (labels i and i+4 share a key).
      for (const [id, runEvents] of delivered) {
        const keys = new Set(runEvents.map((e) => Number(e.split('-').pop()) % 4));
        expect(keys.size, id).toBe(1);
      }
      console.log(`debounce: ${sent.size} racing events in ${delivered.length} runs over 4 keys`);
    },
  );

  it(
    `delivers each of ${PROCESSES * BATCH_PER_PROCESS} events sent at once to a batch in exactly one run of at most ${BATCH_SIZE}, with a bounded history`,
    { timeout: 300_000 },
    async () => {
      const prefix = t.uid('bat');
      const sent = new Set(await race('batch', prefix, BATCH_PER_PROCESS));
      const delivered = await waitFor(
        'every event in a run',
        async () => {
          const runs = runsOf('batch', sent);
          return runs.flatMap(([, e]) => e).length >= sent.size ? runs : undefined;
        },
        120_000,
      );
      expect(deliveredTwice(new Map(delivered))).toEqual([]);
      expect(new Set(delivered.flatMap(([, e]) => e))).toEqual(sent);
      expect(Math.max(...delivered.map(([, e]) => e.length))).toBeLessThanOrEqual(BATCH_SIZE);
      // 600 updates pass the flow control's history limit: it continued as new and lost nothing.
      const flowId = flowControlWorkflowId(flowPipelines.batch.name, '');
      const continued = await waitFor('the flow control’s executions listed', async () => {
        let n = 0;
        for await (const wf of t.client.workflow.list({ query: `WorkflowId = "${flowId}"` })) {
          if (wf.status.name === 'CONTINUED_AS_NEW') n++;
        }
        return n > 0 ? n : undefined;
      });
      const history = await t.client.workflow.getHandle(flowId).fetchHistory();
      console.log(
        `batch: ${sent.size} racing events in ${delivered.length} runs; the flow control continued as new ${continued} time(s), its current history ${history.events?.length} events`,
      );
      expect(history.events!.length).toBeLessThan(1500);
    },
  );
});
