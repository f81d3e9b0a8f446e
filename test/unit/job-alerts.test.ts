import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/errors';
import { compileAlerts, compileAlertTarget } from '../../src/client/jobs/store/job-alerts';
import { parseJobChanges } from '../../src/client/jobs/store/job-options';
import { withAlertChanges } from '../../src/client/jobs/store/build-updates';
import { AlertMetrics } from '../../src/worker/alert-metrics';

describe('compileAlerts', () => {
  it('splits what the runs raise from what the watchdog watches', () => {
    expect(
      compileAlerts({
        onMissed: 'page',
        onLate: { webhook: { url: 'https://hooks.example/x', headers: { authorization: 'Bearer t' } } },
        lateAfter: '5m',
        expectSuccessWithin: '26h',
        onSilent: { webhook: { url: 'http://127.0.0.1:9/h', timeout: '3s' } },
      }),
    ).toEqual({
      run: {
        onMissed: { activity: 'page' },
        onLate: {
          webhook: {
            url: 'https://hooks.example/x',
            headers: { authorization: 'Bearer t' },
            timeoutMs: 10_000,
          },
        },
        lateAfterMs: 300_000,
        watchdog: true,
      },
      watchdog: {
        onSilent: { webhook: { url: 'http://127.0.0.1:9/h', timeoutMs: 3_000 } },
        expectSuccessWithinMs: 26 * 3_600_000,
        onMissed: { activity: 'page' },
      },
    });
  });

  it('needs no watchdog for onLate alone, and nothing at all without alerts', () => {
    expect(compileAlerts({ onLate: 'page', lateAfter: 1_000 })).toEqual({
      run: { onLate: { activity: 'page' }, lateAfterMs: 1_000 },
    });
    expect(compileAlerts({})).toEqual({});
  });

  it.each([
    [{ onLate: 'page' }, 'lateAfter', 'onLate needs lateAfter'],
    [{ lateAfter: '5m' }, 'onLate', 'lateAfter needs onLate'],
    [{ expectSuccessWithin: '26h' }, 'onSilent', 'expectSuccessWithin needs onSilent'],
    [{ onSilent: 'page' }, 'expectSuccessWithin', 'onSilent needs expectSuccessWithin'],
    [{ onMissed: '' }, 'onMissed', 'onMissed must be the name of an activity registered on the worker'],
    [{ onMissed: { webhook: { url: 'ftp://x' } } }, 'onMissed.webhook.url', 'must be an http(s) URL'],
    [{ onMissed: { webhook: { url: 'not a url' } } }, 'onMissed.webhook.url', 'must be an http(s) URL'],
    [{ onMissed: { hook: 'x' } }, 'onMissed', 'or { webhook: { url } }'],
    [
      { onMissed: { webhook: { url: 'http://x', headers: { a: 1 } } } },
      'onMissed.webhook.headers',
      'object of header names to strings',
    ],
    [
      { onMissed: { webhook: { url: 'http://x', timeout: '2 parsecs' } } },
      'onMissed.webhook.timeout',
      'is not a duration',
    ],
    [{ onLate: 'page', lateAfter: 'soon' }, 'lateAfter', 'lateAfter "soon" is not a duration'],
    [
      { onMissed: { webhook: { url: 'https://ops:pa55word@hooks.example/h' } } },
      'onMissed.webhook.url',
      'onMissed.webhook.url must not hold a user name or password (https://user:password@hooks.example/...): send credentials as a header',
    ],
  ])('refuses %j naming %s', (alerts, field, message) => {
    let caught: unknown;
    try {
      compileAlerts(alerts as never);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect(caught).toMatchObject({ field });
    expect((caught as Error).message).toContain(message);
    // The message never repeats a password it was given.
    expect((caught as Error).message).not.toContain('pa55word');
  });

  it('refuses an activity the worker does not have, when the steps are known', () => {
    expect(() => compileAlertTarget('pager', 'onSilent', ['extract', 'notify'])).toThrow(
      'onSilent "pager" is not one of the worker\'s steps (extract, notify): name a registered activity, or use { webhook: { url } }',
    );
    expect(compileAlertTarget('notify', 'onSilent', ['extract', 'notify'])).toEqual({ activity: 'notify' });
  });
});

describe('modifyJob alert changes', () => {
  it('sets, removes with null and keeps what is not named', () => {
    const { alerts } = parseJobChanges({ onLate: null, lateAfter: null, onMissed: 'page' }, undefined);
    expect(alerts).toEqual({ onLate: null, lateAfter: null, onMissed: 'page' });
    expect(
      withAlertChanges({ onLate: 'a', lateAfter: '1m', onSilent: 'b', expectSuccessWithin: '1h' }, alerts),
    ).toEqual({ onMissed: 'page', onSilent: 'b', expectSuccessWithin: '1h' });
    expect(withAlertChanges({ onMissed: 'page' }, { onMissed: null })).toBeUndefined();
  });

  it('keeps alert options apart from the policies', () => {
    const checked = parseJobChanges({ maxInstances: 2, expectSuccessWithin: '2h', onSilent: 'p' }, undefined);
    expect(checked.policies).toEqual({ maxInstances: 2 });
    expect(checked.alerts).toEqual({ expectSuccessWithin: '2h', onSilent: 'p' });
  });
});

describe('AlertMetrics', () => {
  it('counts attempts by kind and outcome, and holds tflow_job_silent while a silent period is open', async () => {
    const metrics = new AlertMetrics();
    metrics.recordDelivery({ kind: 'silent', jobId: 'etl', outcome: 'failed', attempt: 1, error: '503' });
    metrics.recordDelivery({ kind: 'silent', jobId: 'etl', outcome: 'delivered', attempt: 2 });
    metrics.recordDelivery({ kind: 'late', jobId: 'other', outcome: 'delivered', attempt: 1 });
    let text = await metrics.registry.metrics();
    expect(text).toContain('tflow_alert_deliveries_total{kind="silent",outcome="failed"} 1');
    expect(text).toContain('tflow_alert_deliveries_total{kind="silent",outcome="delivered"} 1');
    expect(text).toContain('tflow_alert_deliveries_total{kind="late",outcome="delivered"} 1');
    expect(text).toContain('tflow_job_silent{job="etl"} 1');
    metrics.recordDelivery({ kind: 'recovered', jobId: 'etl', outcome: 'delivered', attempt: 1 });
    text = await metrics.registry.metrics();
    expect(text).toContain('tflow_job_silent{job="etl"} 0');
  });

  it('observes how late each due check ran, by what was due', async () => {
    const metrics = new AlertMetrics();
    const dueAt = new Date('2026-12-04T03:00:30Z');
    const check = (lagMs: number, due: ('deadline' | 'counts')[]) =>
      metrics.recordCheck({
        jobId: 'nightly',
        due,
        dueAt,
        checkedAt: new Date(dueAt.getTime() + lagMs),
        lagMs,
      });
    check(400, ['counts']);
    check(45_000, ['counts', 'deadline']);
    const text = await metrics.registry.metrics();
    expect(text).toContain('tflow_alert_check_lag_seconds_bucket{le="0.5",due="counts"} 1');
    expect(text).toContain('tflow_alert_check_lag_seconds_bucket{le="30",due="counts"} 1');
    expect(text).toContain('tflow_alert_check_lag_seconds_bucket{le="60",due="counts"} 2');
    expect(text).toContain('tflow_alert_check_lag_seconds_count{due="counts"} 2');
    expect(text).toContain('tflow_alert_check_lag_seconds_count{due="deadline"} 1');
    expect(text).toContain('tflow_alert_check_lag_seconds_sum{due="deadline"} 45');
  });
});
