import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import {
  ALERT_WEBHOOK_REJECTED,
  ALERT_WEBHOOK_UNREACHABLE,
  createAlertActivities,
  type AlertDelivery,
} from '../../src/activities/alerts/alert-activities';
import type { CompiledAlertTarget, JobAlertEvent } from '../../src/workflows/alert-types';

/*
 * A webhook's URL can be its secret (Slack's path, a token in the query, a password in the user info).
 * Failure messages are never encrypted by a payload codec and delivery errors go to logs and metrics: they
 * name the webhook by its host only.
 */
const SECRET = 'T0-B0-s3cr3tPath';
const event: JobAlertEvent = {
  kind: 'silent',
  jobId: 'job-1',
  text: 'job "job-1" is silent',
  at: '2026-01-01T00:00:00Z',
};

async function deliver(
  target: CompiledAlertTarget,
): Promise<{ error: unknown; deliveries: AlertDelivery[] }> {
  const deliveries: AlertDelivery[] = [];
  const logged: unknown[] = [];
  const activities = createAlertActivities({
    handlers: {},
    onDelivery: (d) => deliveries.push(d),
    logAlertSent: (fields) => logged.push(fields),
  });
  const run = (t: CompiledAlertTarget, e: JobAlertEvent) => activities.tflowDeliverAlert(t, e);
  const error = await new MockActivityEnvironment().run(run, target, event).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(JSON.stringify(logged)).not.toContain(SECRET);
  return { error, deliveries };
}

describe('tflowDeliverAlert names a webhook by its host only', () => {
  it('when the webhook cannot be reached (retried)', async () => {
    const { error, deliveries } = await deliver({
      webhook: { url: `http://127.0.0.1:9/services/${SECRET}?token=${SECRET}`, timeoutMs: 2_000 },
    });
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: ALERT_WEBHOOK_UNREACHABLE, nonRetryable: false });
    expect((error as Error).message).toMatch(/^webhook 127\.0\.0\.1:9 could not be reached: fetch failed/);
    expect(JSON.stringify(deliveries)).not.toContain(SECRET);
    expect((error as Error).message).not.toContain(SECRET);
  });

  it('when the URL holds a password, which fetch refuses quoting the URL', async () => {
    const { error, deliveries } = await deliver({
      webhook: { url: `https://ops:${SECRET}@hooks.example/h`, timeoutMs: 2_000 },
    });
    expect(error).toMatchObject({ type: ALERT_WEBHOOK_UNREACHABLE });
    expect((error as Error).message).toContain('webhook hooks.example could not be reached');
    expect((error as Error).message).not.toContain(SECRET);
    expect(deliveries).toEqual([
      expect.objectContaining({ outcome: 'failed', error: expect.not.stringContaining(SECRET) as string }),
    ]);
  });

  it('when the webhook refuses the alert (not retried)', async () => {
    const server = createServer((_req, res) => res.writeHead(404, 'Not Found').end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const { error } = await deliver({
        webhook: { url: `http://127.0.0.1:${port}/${SECRET}`, timeoutMs: 2_000 },
      });
      expect(error).toMatchObject({ type: ALERT_WEBHOOK_REJECTED, nonRetryable: true });
      expect((error as Error).message).toBe(`webhook 127.0.0.1:${port} answered 404 Not Found`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
