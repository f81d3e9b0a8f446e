import { describe, expect, it } from 'vitest';
import type { JobDescription } from '../../src/client/jobs/job-types';
import { runMetadata } from '../../src/client/runs/run-metadata';
import { InvalidConfigError, readEnv } from '../../src/config';
import { formatDuration } from '../../src/parse/duration';
import { pipeline, toPipelineSpec } from '../../src/pipeline';
import { nextRunIn } from '../../src/worker/job-metrics';
import { jsonLine, JsonLinesLogger } from '../../src/worker/json-logger';
import { WorkerMetrics } from '../../src/worker/metrics';
import { serveMetrics } from '../../src/worker/metrics-server';
import { progressDetails } from '../../src/workflows/run/current-details';

const etl = pipeline('nightly-etl')
  .step('extract', { retry: { maximumAttempts: 5 }, timeout: '5m' })
  .step('transform', { id: 'clean' })
  .map('load', { concurrency: 4, compensate: 'unload' })
  .parallel([['email'], ['slack', 'log']], { id: 'notify' })
  .onFailure('alertOps');

describe('run metadata (what the Temporal UI shows)', () => {
  it('summarises a scheduled run by pipeline and job, and lists the steps with their options', () => {
    const spec = toPipelineSpec(etl);
    const m = runMetadata({ spec, args: [], job: { jobId: 'etl-nightly' } });
    expect(m.staticSummary).toBe('nightly-etl (job etl-nightly)');
    expect(m.staticDetails).toBe(
      [
        '**Pipeline** nightly-etl · **job** etl-nightly',
        '',
        '1. extract: 5 attempts, timeout 5m',
        '2. clean (transform)',
        '3. load: undo: unload, for each item, 4 at a time',
        '4. notify: in parallel [email] [slack → log]',
        '',
        'On failure: alertOps',
      ].join('\n'),
    );
  });

  it('names the run a redrive comes from, and keeps a long summary to one line', () => {
    const spec = toPipelineSpec(pipeline('p').step('a'));
    const redrive = runMetadata({ spec, args: [], redrive: { fromStep: 'a', workflowId: 'p-1' } });
    expect(redrive.staticSummary).toBe('p (redrive of p-1 from a)');
    const long = runMetadata({ spec: { ...spec, name: 'x'.repeat(300) }, args: [] });
    expect(long.staticSummary).toHaveLength(200);
    expect(long.staticSummary.endsWith('…')).toBe(true);
  });
});

describe('current details (where a run is)', () => {
  it('says the status, the step(s) running, what is done and the compensations', () => {
    expect(
      progressDetails({
        pipeline: 'nightly-etl',
        status: 'running',
        currentStep: 'b',
        running: ['a', 'b'],
        completed: [{ id: 'extract', durationMs: 1_500 }],
      }),
    ).toBe(
      '**Pipeline:** nightly-etl\n\n**Status:** running\n\n**Current steps:** a, b\n\n**Done:** extract (1.5 s)',
    );
    expect(
      progressDetails({ pipeline: 'p', status: 'skipped', currentStep: null, completed: [] }, 'misfire'),
    ).toBe('**Pipeline:** p\n\n**Status:** skipped (misfire)');
    const many = Array.from({ length: 25 }, (_, i) => ({ id: `s${i}`, durationMs: 5 }));
    expect(
      progressDetails({ pipeline: 'p', status: 'completed', currentStep: null, completed: many }),
    ).toMatch(/s19 \(5 ms\), and 5 more$/);
  });

  it.each([
    [250, '250 ms'],
    [1_500, '1.5 s'],
    [300_000, '5m'],
    [5_400_000, '1h 30m'],
    [183_600_000, '2d 3h'],
  ])('formats %d ms as %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});

describe('JSON-lines logger', () => {
  it('writes one JSON object per line with time, level, msg and the metadata, above its level', () => {
    const lines: string[] = [];
    const log = new JsonLinesLogger('INFO', (l) => lines.push(l));
    log.debug('hidden');
    log.info('run.started', { event: 'run.started', job: 'j', msg: 'cannot overwrite', [Symbol('x')]: 1 });
    log.error('boom', { error: new TypeError('bad'), n: 10n });
    expect(lines).toHaveLength(2);
    const [started, boom] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(started).toMatchObject({ level: 'info', msg: 'run.started', event: 'run.started', job: 'j' });
    expect(Date.parse(started!.time as string)).toBeGreaterThan(0);
    expect(boom).toMatchObject({ level: 'error', n: '10', error: { name: 'TypeError', message: 'bad' } });
  });

  it('stays valid JSON with a cycle in the metadata', () => {
    const a: Record<string, unknown> = { name: 'a' };
    a.self = a;
    const line = jsonLine({ level: 'WARN', message: 'm', timestampNanos: 0n, meta: { a } });
    expect(JSON.parse(line)).toEqual({
      time: '1970-01-01T00:00:00.000Z',
      level: 'warn',
      msg: 'm',
      a: { name: 'a', self: '[circular]' },
    });
  });

  it('reads its level from TFLOW_LOG_LEVEL (default info) and refuses an unknown one', () => {
    expect(readEnv({ PATH: '' }).logLevel).toBe('INFO');
    expect(readEnv({ PATH: '', TFLOW_LOG_LEVEL: 'debug' }).logLevel).toBe('DEBUG');
    expect(() => readEnv({ PATH: '', TFLOW_LOG_LEVEL: 'verbose' })).toThrow(
      new InvalidConfigError(
        'TFLOW_LOG_LEVEL',
        'TFLOW_LOG_LEVEL must be one of trace, debug, info, warn, error, got "verbose"',
      ),
    );
  });
});

function job(id: string, paused: boolean, nextRunTimes: Date[], missed = 0): JobDescription {
  return {
    foreign: false,
    id,
    paused,
    pipeline: 'p',
    nextRunTimes,
    recentRuns: [],
    counters: { actionsTaken: 0, skippedOverlap: 0, missedCatchupWindow: missed, running: 0 },
  } as unknown as JobDescription;
}

describe('job metrics', () => {
  it('list the jobs once per refresh period, however many scrapes come at once', async () => {
    let now = Date.parse('2027-01-01T00:00:00Z');
    let calls = 0;
    const lister = {
      listJobs: async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 20));
        return [job('a', false, [new Date(now + 90_000)], 2), job('b', true, [new Date(now + 10_000)])];
      },
    };
    const metrics = new WorkerMetrics();
    metrics.watchJobs(lister, { refreshMs: 60_000, now: () => now });
    const bodies = await Promise.all(Array.from({ length: 5 }, () => metrics.registry.metrics()));
    expect(calls).toBe(1);
    expect(bodies[0]).toContain('tflow_jobs{state="active"} 1');
    expect(bodies[0]).toContain('tflow_jobs{state="paused"} 1');
    expect(bodies[0]).toContain('tflow_job_next_run_seconds{job="a",pipeline="p"} 90');
    expect(bodies[0]).not.toContain('tflow_job_next_run_seconds{job="b"'); // paused: no next run
    expect(bodies[0]).toContain('tflow_job_runs_missed{job="a",reason="catchup-window"} 2');
    now += 30_000;
    expect(await metrics.registry.metrics()).toContain('tflow_job_next_run_seconds{job="a",pipeline="p"} 60');
    expect(calls).toBe(1);
    now += 31_000;
    await metrics.registry.metrics();
    expect(calls).toBe(2);
  });

  it('keep the last listing and count the error when a listing fails', async () => {
    let fail = false;
    let now = 0;
    const metrics = new WorkerMetrics();
    metrics.watchJobs(
      {
        listJobs: async () => {
          if (fail) throw new Error('server gone');
          return [job('a', false, [])];
        },
      },
      { refreshMs: 1_000, now: () => now },
    );
    expect(await metrics.registry.metrics()).toContain('tflow_jobs{state="active"} 1');
    fail = true;
    now = 5_000;
    const body = await metrics.registry.metrics();
    expect(body).toContain('tflow_jobs{state="active"} 1');
    expect(body).toContain('tflow_jobs_list_errors_total 1');
    expect(() => metrics.watchJobs({ listJobs: async () => [] })).toThrow(/already called/);
  });

  it.each([
    ['ahead', [100_000], 0, 50_000, 50],
    ['fired since the listing: the next one ahead', [10_000, 70_000], 0, 20_000, 50],
    ['fired since the listing, none left: the last known', [10_000], 0, 20_000, -10],
    ['already past at the listing: overdue, growing', [-60_000, 10_000], 0, 20_000, -80],
    ['no next run', [], 0, 0, undefined],
  ])('next run in: %s', (_case, offsets, listedAt, now, seconds) => {
    expect(
      nextRunIn(
        offsets.map((o) => new Date(o)),
        listedAt,
        now,
      ),
    ).toBe(seconds);
  });
});

describe('the /metrics and /healthz server', () => {
  const running = { getState: () => 'RUNNING' as const };

  it('listens on 127.0.0.1 unless told otherwise (it listened on every address)', async () => {
    const server = await serveMetrics({ metrics: new WorkerMetrics(), worker: running, port: 0 });
    try {
      expect(server.host).toBe('127.0.0.1');
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('listens on every address when given 0.0.0.0, and is reached on loopback', async () => {
    const server = await serveMetrics({
      metrics: new WorkerMetrics(),
      worker: running,
      port: 0,
      host: '0.0.0.0',
    });
    try {
      expect(server.host).toBe('0.0.0.0');
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('reads TFLOW_METRICS_HOST, 127.0.0.1 when unset', () => {
    expect(readEnv({}).metricsHost).toBe('127.0.0.1');
    expect(readEnv({ TFLOW_METRICS_HOST: '0.0.0.0' }).metricsHost).toBe('0.0.0.0');
  });
});
