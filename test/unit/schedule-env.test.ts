import { ApplicationFailure } from '@temporalio/common';
import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import { pipeline } from 'temporal-flow';
import { createScheduleTestEnv, NotInVirtualTimeError } from 'temporal-flow/testing';

/*
 * The schedule test environment (src/testing/schedule-env): Temporal's schedule rules and the run guards in
 * virtual time, with real step functions. Expected times come from cron-parser; expected outcomes from
 * Temporal's documented rules, worked out by hand in each case's comment.
 */

const steps = {
  async extract(region: string) {
    return [`${region}-1`, `${region}-2`];
  },
  async load(rows: string[]) {
    return rows.length;
  },
  async undoExtract() {
    return 'undone';
  },
};
const etl = pipeline('etl', { steps }).step('extract').step('load');
/** For runs that take longer than the default attempt timeout (10 minutes). */
const longEtl = pipeline('etl', { steps }).step('extract').step('load', { timeout: '1h' });
const at = (iso: string) => new Date(iso).toISOString();
const outcomes = (env: ReturnType<typeof createScheduleTestEnv>, id: string) =>
  env.occurrences(id).map((o) => `${o.nominal.slice(11, 19)} ${o.outcome}${o.reason ? `:${o.reason}` : ''}`);

describe('times and runs', () => {
  it('runs an hourly job at the times cron-parser lists, each run through both steps', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
    await env.schedule(etl, { cron: '0 * * * *', jobId: 'hourly', args: ['eu'] });
    await env.advance('3d');
    const it = CronExpressionParser.parse('0 * * * *', { currentDate: '2027-01-01T00:00:00Z', tz: 'UTC' });
    const expected = Array.from({ length: 72 }, () => it.next().toDate().toISOString());
    expect(env.occurrences('hourly').map((o) => o.nominal)).toEqual(expected);
    expect(env.occurrences('hourly').every((o) => o.outcome === 'ran')).toBe(true);
    const run = env.runs('hourly')[0]!;
    expect(run).toMatchObject({ workflowId: 'hourly-2027-01-01T01:00:00Z', status: 'completed', output: 2 });
    expect(run.steps.map((s) => [s.stepId, s.status, s.attempts.length])).toEqual([
      ['extract', 'completed', 1],
      ['load', 'completed', 1],
    ]);
  });

  it('a DST policy over five years: 02:30 Paris once a day, shifted to 03:00 on spring days (luxon)', async () => {
    const { DateTime } = await import('luxon');
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, timezone: 'Europe/Paris' });
    await env.schedule(etl, { cron: '30 2 * * *', jobId: 'paris', dst: { gap: 'shift', overlap: 'once' } });
    await env.advanceTo('2032-01-01T00:00:00Z');
    const expected: string[] = [];
    for (
      let d = DateTime.fromISO('2027-01-01', { zone: 'Europe/Paris' });
      d.year < 2032;
      d = d.plus({ days: 1 })
    ) {
      const t = d.set({ hour: 2, minute: 30 });
      // 02:30 that does not exist (spring forward) runs at 03:00, the first instant after the gap.
      expected.push(
        (t.hour === 2 ? t : d.set({ hour: 3, minute: 0 })).toUTC().toISO({ suppressMilliseconds: false })!,
      );
    }
    const ran = env.occurrences('paris').filter((o) => o.outcome === 'ran');
    expect(ran.map((o) => o.nominal)).toEqual(expected);
  });
});

describe('overlap, grace and outages, as the server and the guards decide', () => {
  it('SKIP (coalesce): a run open when the next fire comes skips it', async () => {
    // every 10m, runs take 25m: 00:10 runs to 00:35, so 00:20 and 00:30 skip; 00:40 runs to 01:05 ...
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '25m' } });
    await env.scheduleInterval(longEtl, { every: '10m', jobId: 'skip' });
    await env.advance('1h');
    expect(outcomes(env, 'skip')).toEqual([
      '00:10:00 ran',
      '00:20:00 skipped:overlap',
      '00:30:00 skipped:overlap',
      '00:40:00 ran',
      '00:50:00 skipped:overlap',
      '01:00:00 skipped:overlap',
    ]);
  });

  it('BUFFER_ALL (coalesce: false): each fire waits for the run before, then starts at its close', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '15m' } });
    await env.scheduleInterval(longEtl, { every: '10m', jobId: 'buffer', coalesce: false });
    await env.advance('40m');
    // 00:10 runs 00:10-00:25; 00:20 starts 00:25-00:40; 00:30 starts 00:40 (running at 00:40)
    expect(env.runs('buffer').map((r) => [r.nominal.slice(11, 16), r.startedAt.slice(11, 16)])).toEqual([
      ['00:10', '00:10'],
      ['00:20', '00:25'],
      ['00:30', '00:40'],
    ]);
    expect(outcomes(env, 'buffer').slice(-1)).toEqual(['00:40:00 buffered']);
  });

  it('a worker outage: the waiting run stands for the latest fire and is judged against the grace from it', async () => {
    // every 10m, grace 15m, no worker 00:25-01:05: 00:30 starts, waits; 00:40-01:00 skip (it is open);
    // at 01:05 it stands for 01:00 (5m late, within 15m) and runs.
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
    await env.scheduleInterval(etl, { every: '10m', jobId: 'outage', misfireGraceTime: '15m' });
    env.workersDown({ from: '2027-01-01T00:25:00Z', to: '2027-01-01T01:05:00Z' });
    await env.advance('70m');
    const run = env.runs('outage').find((r) => r.nominal === at('2027-01-01T00:30:00Z'))!;
    expect(run).toMatchObject({
      status: 'completed',
      standsFor: at('2027-01-01T01:00:00Z'),
      firstTaskAt: at('2027-01-01T01:05:00Z'),
    });
    expect(outcomes(env, 'outage').slice(2, 6)).toEqual([
      '00:30:00 ran',
      '00:40:00 skipped:overlap',
      '00:50:00 skipped:overlap',
      '01:00:00 skipped:overlap',
    ]);
  });

  it('a late backfilled run of a coalescing job stands for no fire of a pause, nor for one that ran', async () => {
    // The server's answer to the guard's lookup (latest-occurrence.ts): none while the schedule is paused;
    // else the latest fire after the run's nominal time and after every other recent action's. Hourly,
    // grace 10m, backfill of 20:00 and 21:00 the day before at 05:05 (9 h late): paused, each is judged by
    // its own time (misfire), as the dev server does (scheduler-policies.test.ts); live, the 05:00 fire had
    // its own run, so nothing after it is due and each is judged by its own time too (standing for 05:00,
    // 5 minutes late, would run it).
    for (const paused of [true, false]) {
      const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
      await env.schedule(etl, { cron: '0 * * * *', jobId: 'c', misfireGraceTime: '10m', paused });
      await env.advanceTo('2027-01-01T05:05:00Z');
      await env.backfillJob('c', { from: '2026-12-31T20:00:00Z', to: '2026-12-31T21:00:00Z' });
      const backfilled = env.runs('c').filter((r) => r.source === 'backfill');
      expect(backfilled.map((r) => [r.nominal.slice(11, 16), r.status, r.skipReason, r.standsFor])).toEqual([
        ['20:00', 'skipped', 'misfire', undefined],
        ['21:00', 'skipped', 'misfire', undefined],
      ]);
    }
  });

  it('a misfire: a run later than its grace skips itself and raises onMissed', async () => {
    const env = createScheduleTestEnv({
      start: '2027-01-01T00:00:00Z',
      steps: { ...steps, page: async () => 0 },
    });
    await env.schedule(etl, {
      cron: '0 2 * * *',
      jobId: 'nightly',
      misfireGraceTime: '10m',
      onMissed: 'page',
    });
    env.workersDown({ from: '2027-01-01T01:00:00Z', to: '2027-01-01T03:00:00Z' });
    await env.advance('1d');
    expect(env.runs('nightly')[0]).toMatchObject({
      status: 'skipped',
      skipReason: 'misfire',
      lateMs: 3_600_000,
    });
    expect(env.alerts('nightly').map((a) => [a.alert, a.event.reason, a.event.nominalTimes])).toEqual([
      ['onMissed', 'misfire', [at('2027-01-01T02:00:00Z')]],
    ]);
  });

  it('server downtime past the catch-up window: the fires older than it when the server is back are not started', async () => {
    // grace 1m -> catchupWindow 1m; server down 00:05-01:00:30: at 01:00:30 only 01:00 is within 1m.
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
    await env.scheduleInterval(etl, { every: '10m', jobId: 'catchup', misfireGraceTime: '1m' });
    env.serverDown({ from: '2027-01-01T00:05:00Z', to: '2027-01-01T01:00:30Z' });
    await env.advance('65m');
    expect(outcomes(env, 'catchup')).toEqual([
      '00:10:00 skipped:catchup-window',
      '00:20:00 skipped:catchup-window',
      '00:30:00 skipped:catchup-window',
      '00:40:00 skipped:catchup-window',
      '00:50:00 skipped:catchup-window',
      '01:00:00 ran',
    ]);
    expect(env.runs('catchup')[0]!.startedAt).toBe(at('2027-01-01T01:00:30Z'));
  });

  it('a pause drops what the buffer holds; fires while paused are not made up on resume', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '25m' } });
    await env.scheduleInterval(longEtl, { every: '10m', jobId: 'p', coalesce: false });
    await env.advance('21m'); // 00:10 runs to 00:35, 00:20 buffered
    await env.pauseJob('p');
    await env.advance('19m'); // 00:30 while paused
    await env.resumeJob('p');
    await env.advance('10m');
    expect(outcomes(env, 'p')).toEqual([
      '00:10:00 ran',
      '00:20:00 skipped:buffer-dropped',
      '00:30:00 skipped:paused',
      '00:40:00 skipped:paused', // due at the instant of the resume, it came first
      '00:50:00 ran',
    ]);
  });

  it('maxInstances 2: a third run at once skips itself (max-instances)', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '25m' } });
    await env.scheduleInterval(longEtl, { every: '10m', jobId: 'two', maxInstances: 2 });
    await env.advance('30m');
    expect(outcomes(env, 'two')).toEqual(['00:10:00 ran', '00:20:00 ran', '00:30:00 skipped:max-instances']);
  });

  it('triggerJob runs now with the job overlap policy; backfillJob runs every past fire (SKIP job: queued, BUFFER_ALL)', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
    await env.schedule(etl, { cron: '0 * * * *', jobId: 'm', paused: true });
    await env.advance('90m');
    await env.triggerJob('m');
    await env.backfillJob('m', { from: '2027-01-01T00:00:00Z', to: '2027-01-01T01:00:00Z' });
    const manual = env.occurrences('m').filter((o) => o.source !== 'schedule');
    // Under the job's own SKIP, Temporal would start 00:00 and skip 01:00 (due while it is open).
    expect(manual.map((o) => [o.source, o.nominal.slice(11, 19), o.outcome])).toEqual([
      ['trigger', '01:30:00', 'ran'],
      ['backfill', '00:00:00', 'ran'],
      ['backfill', '01:00:00', 'ran'],
    ]);
  });

  it('a backfill of a SKIP job queues behind the open run; a fire due while the queue drains is skipped', async () => {
    // Runs of 25 minutes, fires from 01:00. At 03:10 the 03:00 run is open: the backfill's 21:00, 22:00
    // and 23:00 of the day before wait behind it and start at each close (03:25, 03:50, 04:15, Temporal's
    // own delays being zero); the 04:00 fire finds the 22:00 one open and the 23:00 one buffered before
    // it: SKIP drops it (overlap); 05:00 runs.
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '25m' } });
    await env.schedule(longEtl, { cron: '0 * * * *', jobId: 'q' });
    await env.advanceTo('2027-01-01T03:10:00Z');
    await env.backfillJob('q', { from: '2026-12-31T21:00:00Z', to: '2026-12-31T23:00:00Z' });
    await env.advanceTo('2027-01-01T05:30:00Z');
    expect(
      env
        .occurrences('q')
        .map((o) => `${o.source} ${o.nominal.slice(11, 16)} ${o.outcome}${o.reason ? `:${o.reason}` : ''}`),
    ).toEqual([
      'schedule 01:00 ran',
      'schedule 02:00 ran',
      'schedule 03:00 ran',
      'backfill 21:00 ran',
      'backfill 22:00 ran',
      'backfill 23:00 ran',
      'schedule 04:00 skipped:overlap',
      'schedule 05:00 ran',
    ]);
    expect(
      env
        .runs('q')
        .filter((r) => r.source === 'backfill')
        .map((r) => `${r.startedAt.slice(11, 16)}-${r.closedAt?.slice(11, 16)}`),
    ).toEqual(['03:25-03:50', '03:50-04:15', '04:15-04:40']);
  });

  it('a backfill of a maxInstances 2 job starts its fires at once (ALLOW_ALL); the semaphore skips the third', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '25m' } });
    await env.schedule(longEtl, { cron: '0 * * * *', jobId: 'two', maxInstances: 2, paused: true });
    await env.advanceTo('2027-01-01T03:10:00Z');
    await env.backfillJob('two', { from: '2027-01-01T00:00:00Z', to: '2027-01-01T02:00:00Z' });
    await env.advance('1h');
    const backfilled = env.occurrences('two').filter((o) => o.source === 'backfill');
    expect(
      backfilled.map((o) => `${o.nominal.slice(11, 19)} ${o.outcome}${o.reason ? `:${o.reason}` : ''}`),
    ).toEqual(['00:00:00 ran', '01:00:00 ran', '02:00:00 skipped:max-instances']);
  });
});

describe('steps: retries, timeouts, saga, dead letters, alerts', () => {
  it('retries with backoff in virtual time (1 s, then 2 s), then succeeds', async () => {
    let calls = 0;
    const flaky = {
      ...steps,
      async extract(region: string) {
        if (++calls < 3) throw ApplicationFailure.retryable('not yet');
        return [region];
      },
    };
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps: flaky });
    await env.schedule(pipeline('r', { steps: flaky }).step('extract').step('load'), {
      cron: '0 1 * * *',
      jobId: 'r',
    });
    await env.advance('2h');
    const attempts = env.runs('r')[0]!.steps[0]!.attempts;
    expect(attempts.map((a) => [a.attempt, a.startedAt.slice(11, 19), a.outcome])).toEqual([
      [1, '01:00:00', 'failed'],
      [2, '01:00:01', 'failed'],
      [3, '01:00:03', 'completed'],
    ]);
  });

  it('a step that fails for good: compensations in reverse, onFailure, PipelineFailed, a dead letter, onError', async () => {
    const seen: string[] = [];
    const own = {
      ...steps,
      async load(): Promise<number> {
        throw ApplicationFailure.nonRetryable('warehouse refused', 'Refused');
      },
      async notify() {
        seen.push('onFailure');
      },
      async onErr(e: { message: string }) {
        seen.push(`onError: ${e.message}`);
      },
    };
    const p = pipeline('saga', { steps: own })
      .step('extract', { compensate: 'undoExtract' })
      .step('load')
      .onFailure('notify');
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps: own });
    await env.schedule(p, { cron: '0 1 * * *', jobId: 's', args: ['eu'], onError: 'onErr' });
    await env.advance('2h');
    const run = env.runs('s')[0]!;
    expect(run.status).toBe('failed');
    expect(run.failure).toMatchObject({
      failedStep: 'load',
      attempts: 1,
      errorType: 'Refused',
      input: [['eu-1', 'eu-2']],
    });
    expect(run.compensations).toEqual([{ stepId: 'extract', activity: 'undoExtract', status: 'completed' }]);
    expect(seen).toEqual(['onFailure', 'onError: pipeline "saga" failed at step "load": warehouse refused']);
    expect(env.deadLetters('s').map((d) => d.details.failedStep)).toEqual(['load']);
  });

  it('an attempt longer than its timeout times out, and is retried as the policy says', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '2m' } });
    const p = pipeline('slow', { steps })
      .step('extract')
      .step('load', { timeout: '1m', retry: { maximumAttempts: 2 } });
    await env.schedule(p, { cron: '0 1 * * *', jobId: 'slow' });
    await env.advance('2h');
    const run = env.runs('slow')[0]!;
    expect(
      run.steps[1]!.attempts.map((a) => [a.startedAt.slice(11, 19), a.endedAt.slice(11, 19), a.outcome]),
    ).toEqual([
      ['01:00:00', '01:01:00', 'timeout'],
      ['01:01:01', '01:02:01', 'timeout'],
    ]);
    expect(run.failure).toMatchObject({
      failedStep: 'load',
      message: 'activity StartToClose timeout',
      errorType: 'TimeoutFailure',
    });
  });

  it('the dead-man switch: silent once after expectSuccessWithin with no completed run, recovered at the next', async () => {
    const env = createScheduleTestEnv({
      start: '2027-01-01T00:00:00Z',
      steps: { ...steps, page: async () => 0 },
    });
    await env.schedule(etl, { cron: '0 2 * * *', jobId: 'd', expectSuccessWithin: '26h', onSilent: 'page' });
    env.workersDown({ from: '2027-01-02T01:00:00Z', to: '2027-01-03T05:00:00Z' });
    await env.advance('3d');
    expect(env.alerts('d').map((a) => [a.event.kind, a.event.at])).toEqual([
      ['silent', at('2027-01-02T04:00:00Z')], // 26 h after the 02:00 run of Jan 1
      ['recovered', at('2027-01-03T05:00:00Z')], // the run of Jan 3 02:00, taken when workers are back
    ]);
  });
});

describe('what virtual time cannot do', () => {
  it('refuses a waitFor step, naming what to use instead', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
    const p = pipeline('w', { steps }).step('extract').waitFor('approve', { signal: 'approve' });
    await expect(env.schedule(p, { cron: '0 1 * * *' })).rejects.toThrow(NotInVirtualTimeError);
    await expect(env.schedule(p, { cron: '0 1 * * *' })).rejects.toThrow(
      /waitFor step "approve".*createPipelineTestEnv/,
    );
  });

  it('refuses modifyJob and rescheduleJob with a typed error naming what to use, changing nothing', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
    await env.schedule(etl, { cron: '0 * * * *', jobId: 'e' });
    await env.advance('90m');
    const modify = await env.modifyJob('e', { args: ['us'], coalesce: false }).catch((e: unknown) => e);
    expect(modify).toBeInstanceOf(NotInVirtualTimeError);
    expect(modify).toMatchObject({
      code: 'NOT_IN_VIRTUAL_TIME',
      feature: 'modifyJob("e") (an edit of its args, policies, onError or alerts)',
    });
    expect((modify as Error).message).toBe(
      'modifyJob("e") (an edit of its args, policies, onError or alerts) cannot run in the schedule test environment: an edit is not simulated: schedule the edited job in a new environment started at the instant of the edit (runs open or buffered at that instant are not carried over), or test the edit with PipelineScheduler on a dev server (tflow dev)',
    );
    await expect(env.rescheduleJob('e', { cron: '30 * * * *' })).rejects.toThrow(
      /^rescheduleJob\("e"\) \(an edit of its trigger\) cannot run in the schedule test environment: an edit is not simulated/,
    );
    // The job runs on as it was: every hour on the hour.
    await env.advance('2h');
    expect(env.occurrences('e').map((o) => o.nominal.slice(11, 16))).toEqual(['01:00', '02:00', '03:00']);
    expect(env.runs('e').every((r) => r.status === 'completed')).toBe(true);
  });

  it('refuses to move back in time, or to put an outage in the past', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps });
    await env.advance('1h');
    await expect(env.advanceTo('2027-01-01T00:30:00Z')).rejects.toThrow(/only moves forward/);
    expect(() => env.workersDown({ from: '2027-01-01T00:00:00Z', to: '2027-01-01T02:00:00Z' })).toThrow(
      /before the environment's now/,
    );
  });

  it('refuses a job as the scheduler does: a step the worker lacks is its UnknownStepError', async () => {
    const env = createScheduleTestEnv({
      start: '2027-01-01T00:00:00Z',
      steps: { extract: (r: string) => steps.extract(r) },
    });
    await expect(env.schedule(etl, { cron: '0 1 * * *' })).rejects.toThrow(/unknown step "load"/);
  });

  it('an attempt past the default 10-minute attempt timeout times out and is retried, as on a server', async () => {
    const env = createScheduleTestEnv({ start: '2027-01-01T00:00:00Z', steps, durations: { load: '25m' } });
    await env.schedule(etl, { cron: '0 1 * * *', jobId: 'long' });
    await env.advance('95m'); // attempts of 10 minutes, backoff 1 s then 2 s
    const attempts = env.runs('long')[0]!.steps[1]!.attempts;
    expect(attempts.map((a) => [a.startedAt.slice(11, 19), a.outcome])).toEqual([
      ['01:00:00', 'timeout'],
      ['01:10:01', 'timeout'],
      ['01:20:03', 'timeout'],
    ]);
  });
});
