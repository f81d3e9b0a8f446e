import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { buildProgram } from '../../src/cli/main';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/pipeline-scheduler';
import { JobNotFoundError } from '../../src/client/errors';
import { connectTest, waitFor, type TestContext } from '../helpers/temporal';

let t: TestContext;
let scheduler: PipelineScheduler;
const steps = {
  async ping(x: string) {
    return x;
  },
};

beforeAll(async () => {
  t = await connectTest('cli');
  await t.startWorker(steps);
  scheduler = new PipelineScheduler(t.client, { taskQueue: t.taskQueue, steps });
});
afterAll(async () => t?.close());

/** Runs `tflow jobs ...` in process against the suite's server and returns what it printed. */
async function tflow(...args: string[]): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    const conn = ['--address', inject('temporalAddress'), '--namespace', inject('temporalNamespace')];
    await buildProgram().parseAsync(['node', 'tflow', 'jobs', ...conn, ...args]);
    return log.mock.calls.map((c) => String(c[0])).join('\n');
  } finally {
    log.mockRestore();
  }
}

describe('tflow jobs', () => {
  it('lists, gets, pauses, resumes, triggers, shows history and stats, removes', async () => {
    const jobId = await scheduler.schedule(pipeline('cli-ping', { steps }).step('ping'), {
      jobId: t.uid('cli'),
      cron: '0 2 * * *',
      timezone: 'Europe/Paris',
      args: ['pong'],
      paused: true,
    });
    const line = await waitFor('the job in `tflow jobs list`', async () =>
      (await tflow('list', '--pipeline', 'cli-ping')).split('\n').find((l) => l.startsWith(jobId)),
    );
    expect(line).toBe(`${jobId}\tcli-ping\tcron 0 2 * * * (Europe/Paris)\tpaused`);
    const listed = JSON.parse(await tflow('list', '--json', '--pipeline', 'cli-ping')) as { id: string }[];
    expect(listed.map((j) => j.id)).toContain(jobId);

    expect(JSON.parse(await tflow('get', jobId, '--json'))).toMatchObject({
      id: jobId,
      trigger: { cron: '0 2 * * *', timezone: 'Europe/Paris' },
      args: ['pong'],
      paused: true,
      dstWarnings: expect.arrayContaining([
        expect.objectContaining({
          date: expect.stringMatching(/^\d{4}-03-\d\d$/) as unknown,
          kind: 'skipped',
        }),
      ]) as unknown,
    });
    expect(await tflow('resume', jobId, '--note', 'go')).toBe(`resumed ${jobId}`);
    expect(await scheduler.getJob(jobId)).toMatchObject({ paused: false, note: 'go' });
    expect(JSON.parse(await tflow('pause', jobId, '--json'))).toEqual({ ok: true, jobId, paused: true });
    expect(await tflow('trigger', jobId)).toBe(`triggered ${jobId}`);
    const history = await waitFor('the run in `tflow jobs history`', async () => {
      const out = await tflow('history', jobId);
      return out.includes('\tcompleted\t') ? out : undefined;
    });
    expect(history).toMatch(new RegExp(`^\\S+\\tcompleted\\tdue \\S+\\t\\d+ ms\\t${jobId}-`));
    const stats = JSON.parse(await tflow('stats', '--json')) as { jobs: number };
    expect(stats.jobs).toBeGreaterThanOrEqual(1);
    expect(await tflow('stats')).toMatch(/^jobs: \d+ \(paused \d+, foreign schedules \d+\)\nrunning: \d+/);
    expect(await tflow('remove', jobId)).toBe(`removed ${jobId}`);
    await expect(tflow('get', jobId)).rejects.toThrow(JobNotFoundError);
  });
});
