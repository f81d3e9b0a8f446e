import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tflow as run } from '../helpers/cli';
import { pipeline } from '../../src/pipeline';
import { PipelineScheduler } from '../../src/client/jobs/pipeline-scheduler';
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

/** Runs `tflow jobs ...` in process against the suite's server, piped (not a terminal). */
const tflow = (...args: string[]) => run(['jobs', ...args], { tty: false });
/** The same on a fake terminal: tables and cards. */
const onTTY = (...args: string[]) => run(['jobs', ...args], { tty: true });

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
    const table = (await onTTY('list', '--pipeline', 'cli-ping')).split('\n');
    expect(table[0]).toMatch(/^JOB +PIPELINE +TRIGGER +NEXT RUN +STATE$/);
    const row = table.find((l) => l.startsWith(jobId))!;
    expect(row).toMatch(new RegExp(`^${jobId} +cli-ping +At 02:00 \\(Europe/Paris\\) +- +paused$`));
    expect(row.indexOf('At 02:00')).toBe(table[0]!.indexOf('TRIGGER'));
    const pausedCard = await onTTY('get', jobId);
    expect(pausedCard).toMatch(new RegExp(`^${jobId}  pipeline cli-ping  paused\n`));
    expect(pausedCard).toContain(
      '  Trigger    At 02:00 (Europe/Paris)\n             cron 0 2 * * * (Europe/Paris)',
    );
    expect(pausedCard).toContain('  Next runs  paused: no run starts until `tflow jobs resume`');
    expect(pausedCard).toMatch(/ {2}DST {8}\d{4}-03-\d\d 02:00 Europe\/Paris does not exist/);
    expect(pausedCard).toContain('    no runs yet');

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
    await tflow('resume', jobId);
    const card = await onTTY('get', jobId);
    const next = card
      .split('\n')
      .filter((l) => /^ {2}(Next runs| {9}) {2}\d{4}-\d\d-\d\d 02:00 GMT\+\d \(in [^)]+\)/.test(l));
    expect(next).toHaveLength(5);
    expect(card).toMatch(
      / {2}Last runs\n {4}STARTED +STATUS +DUE +DURATION +WORKFLOW ID +ERROR\n {4}\d{4}-\S+ \S+ \S+ \((now|.* ago)\) +completed +\d{4}-\S+ \S+ GMT\+\d +\d+ m?s +/,
    );
    const watched = await onTTY('watch', '--times', '1', '--pipeline', 'cli-ping');
    expect(watched.startsWith('\x1b[2J\x1b[H')).toBe(true); // the screen is cleared, then redrawn
    expect(watched.slice(7)).toMatch(/^JOB +PIPELINE/);
    expect(watched).toMatch(
      new RegExp(
        `\n${jobId} +cli-ping +At 02:00 \\(Europe/Paris\\) +\\d{4}-\\S+ \\S+ GMT\\+\\d \\(in [^)]+\\) +active\n`,
      ),
    );
    expect(watched).toMatch(/Ctrl-C to stop$/);
    expect(JSON.parse(await tflow('watch', '--times', '1', '--json', '--pipeline', 'cli-ping'))).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: jobId, paused: false })]),
    );
    const stats = JSON.parse(await tflow('stats', '--json')) as { jobs: number };
    expect(stats.jobs).toBeGreaterThanOrEqual(1);
    expect(await tflow('stats')).toMatch(/^jobs: \d+ \(paused \d+, foreign schedules \d+\)\nrunning: \d+/);
    expect(await tflow('remove', jobId)).toBe(`removed ${jobId}`);
    await expect(tflow('get', jobId)).rejects.toThrow(JobNotFoundError);
  });
});
