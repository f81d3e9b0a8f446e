import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../src/client/runs/pipeline-client';
import { connectTest, type TestContext } from '../helpers/temporal';
import { WorkerProcesses } from '../helpers/worker-processes';
import { RATE_PER_SECOND, rateLimited } from '../fixtures/rate-limited-pipeline';

/*
 * `step(name, { rateLimit: '5/s' })` holds across two worker processes: the step runs on a task queue of
 * its own, whose rate Temporal's matching service enforces for all pollers together.
 */

let t: TestContext;
let dir: string;
const workers = new WorkerProcesses('rate-limit-worker-process.ts');

beforeAll(async () => {
  t = await connectTest('rate-limit');
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-rate-'));
});
afterAll(async () => {
  await workers.stopAll();
  await t?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('rate-limited steps', () => {
  it('start at most 5 per second across two worker processes', async () => {
    const logFile = path.join(dir, 'ticks.log');
    const [a, b] = await Promise.all([workers.start(t, logFile), workers.start(t, logFile)]);
    const client = new PipelineClient(t.client, { taskQueue: t.taskQueue });
    const items = 30;

    const output = await client.run(rateLimited, [items]);

    expect(output).toEqual(Array.from({ length: items }, (_, i) => i));
    const starts = (await readFile(logFile, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => l.split(' ').map(Number) as [number, number, number]);
    expect(starts.map(([, , item]) => item).sort((x, y) => x - y)).toEqual(
      Array.from({ length: items }, (_, i) => i),
    );
    expect(new Set(starts.map(([pid]) => pid))).toEqual(new Set([a.pid, b.pid]));
    const times = starts.map(([, at]) => at).sort((x, y) => x - y);
    const first = times[0]!;
    const last = times.at(-1)!;
    // Temporal's limiter is a token bucket per queue partition (4 on the dev server), each starting full:
    // the first second may start more than the rate; from then on the rate holds.
    const busiest = Math.max(
      ...times.map((from) => times.filter((at) => at >= from && at < from + 1000).length),
    );
    const later = times.filter((at) => at >= first + 1000);
    const steady = later.length / ((last - first - 1000) / 1000);
    console.log(
      `rate limit ${RATE_PER_SECOND}/s over 2 worker processes: ${items} starts in ${((last - first) / 1000).toFixed(2)} s; busiest second ${busiest}; after the first second ${steady.toFixed(2)}/s`,
    );
    expect(steady).toBeLessThanOrEqual(RATE_PER_SECOND * 1.1);
    // Without the limit the 30 items would all start at once (concurrency 30).
    expect(busiest).toBeLessThanOrEqual(3 * RATE_PER_SECOND);
    expect(last - first).toBeGreaterThanOrEqual(((items - 3 * RATE_PER_SECOND) / RATE_PER_SECOND) * 1000);
  });
});
