import { describe, expect, it } from 'vitest';
import { pipeline } from '../../src/pipeline';
import { compileAlerts, type JobAlerts } from '../../src/client/jobs/store/job-alerts';
import { prepareJob, type JobDefaults } from '../../src/client/jobs/job-compile';
import { canonicalJson, desiredView, markedView } from '../../src/client/jobs/job-view';
import { shownAlerts } from '../../src/client/jobs/alert-view';
import { InvalidArgumentError } from '../../src/errors';

/*
 * A plan is printed in CI logs and pull-request comments: a job's alert targets show by kind and hash,
 * never by URL or header, and no error about them quotes either.
 */

const SECRETS = ['s3cret-token', 'token=abc', 'T000/B000'];
const hook = (authorization: string) => ({
  webhook: {
    url: 'https://hooks.example/services/T000/B000?token=abc',
    headers: { authorization: `Bearer ${authorization}` },
  },
});
const alerts = (authorization: string): JobAlerts => ({
  onMissed: 'page',
  expectSuccessWithin: '600s',
  onSilent: hook(authorization),
});

const defaults: JobDefaults = {
  taskQueue: 'q',
  timezone: 'UTC',
  dst: undefined,
  policies: {},
  misfireGraceMs: undefined,
  knownSteps: undefined,
  alerts: {},
  onError: undefined,
  watchdogTaskQueue: 'w',
};
const etl = pipeline('alerts-shown').step('extract');

describe("a plan's view of alerts", () => {
  it('shows an activity by name and a webhook by kind and hash, durations compiled', () => {
    const shown = shownAlerts(alerts('s3cret-token'));
    expect(shown).toEqual({
      onMissed: 'activity:page',
      expectSuccessWithin: '10m',
      onSilent: expect.stringMatching(/^webhook#[0-9a-f]{8}$/),
    });
    const view = desiredView(
      prepareJob(etl, { jobId: 'j', cron: '0 2 * * *', ...alerts('s3cret-token') }, defaults),
    ).view.alerts!;
    expect(view).toBe(canonicalJson(shown));
    for (const secret of SECRETS) expect(view).not.toContain(secret);
  });

  it('shows a changed header, URL or timeout as another hash, and header names in any case as the same', () => {
    const base = shownAlerts(alerts('s3cret-token')).onSilent;
    expect(shownAlerts(alerts('other-token')).onSilent).not.toBe(base);
    const other = (webhook: Record<string, unknown>) =>
      shownAlerts({
        expectSuccessWithin: '10m',
        onSilent: { webhook: { ...hook('s3cret-token').webhook, ...webhook } },
      }).onSilent;
    expect(other({ url: 'https://hooks.example/services/T000/B000?token=abd' })).not.toBe(base);
    expect(other({ timeout: '3s' })).not.toBe(base);
    expect(other({ timeout: '10s' })).toBe(base); // the default timeout, written out
    expect(other({ headers: { Authorization: 'Bearer s3cret-token' } })).toBe(base);
  });

  it("rewrites the alerts of a mark written before (compiled JSON, secrets included) to today's form", () => {
    const given = alerts('s3cret-token');
    const legacy = { trigger: 'x', alerts: canonicalJson(compileAlerts(given)) };
    expect(legacy.alerts).toContain('s3cret-token');
    expect(markedView(legacy)).toEqual({ trigger: 'x', alerts: canonicalJson(shownAlerts(given)) });
    expect(markedView({ alerts: 'none' })).toEqual({ alerts: 'none' });
    // A mark of today's form is read as it is.
    const today = { alerts: canonicalJson(shownAlerts(given)) };
    expect(markedView(today)).toEqual(today);
  });
});

describe('errors about alert targets', () => {
  it.each([
    [
      { onMissed: { webhook: { url: 'ftp://hooks.example/services/T000/B000?token=abc' } } },
      'onMissed.webhook.url must be an http(s) URL, got a ftp: URL (host hooks.example)',
    ],
    [
      { onMissed: { webhook: { url: 'hooks.example/services/T000/B000?token=abc' } } },
      'onMissed.webhook.url must be an http(s) URL, got a string that is not a URL',
    ],
    [
      { onMissed: { webhook: { url: 'https://hooks.example/x', headers: 'Bearer s3cret-token' } } },
      'onMissed.webhook.headers must be an object of header names to strings, got a string',
    ],
    [
      {
        onMissed: {
          webhook: {
            url: 'https://hooks.example/x',
            headers: { authorization: ['Bearer s3cret-token'], a: 'b' },
          },
        },
      },
      'onMissed.webhook.headers must be an object of header names to strings: "authorization" is an array',
    ],
    [
      { onMissed: { url: 'https://hooks.example/services/T000/B000?token=abc' } },
      'onMissed must be the name of an activity registered on the worker or { webhook: { url } }, got an object with keys url',
    ],
  ])('name the field and the kind of value, never the value: %j', (given, message) => {
    let caught: unknown;
    try {
      compileAlerts(given as never);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect((caught as Error).message).toBe(message);
    for (const secret of SECRETS) expect((caught as Error).message).not.toContain(secret);
  });
});
