import { TypedSearchAttributes } from '@temporalio/common';
import type { ScheduleDescription } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { readingOf } from '../../src/activities/alerts/evaluator/evaluator-sources';
import type { JobRecord } from '../../src/client/jobs/store/job-record';

/*
 * The evaluator holds one copy of each alert target and alert queue name, however many jobs name them
 * (10,000 jobs with the scheduler-wide targets kept 20,000 copies of one webhook), and still each job's own
 * targets where they differ.
 */

function description(record: JobRecord): ScheduleDescription {
  return {
    action: {
      type: 'startWorkflow',
      workflowId: 'run',
      taskQueue: 'q',
      memo: { tflowJob: structuredClone(record) },
    },
    state: { paused: false },
    info: {
      createdAt: new Date('2026-12-05T00:00:00Z'),
      nextActionTimes: [new Date('2026-12-05T03:00:00Z')],
      numActionsMissedCatchupWindow: 0,
      numActionsSkippedOverlap: 0,
    },
    spec: {},
    policies: { catchupWindow: 60_000 },
    typedSearchAttributes: new TypedSearchAttributes(),
    raw: {},
  } as unknown as ScheduleDescription;
}

const record = (url: string, alertQueue = 'alerts-a'): JobRecord => ({
  v: 1,
  trigger: { cron: '0 3 * * *' },
  timezone: 'UTC',
  policies: {},
  alerts: { onMissed: { webhook: { url } }, onSilent: { webhook: { url } }, expectSuccessWithin: '25h' },
  alertQueue,
});

describe("the evaluator's readings share their targets", () => {
  it('gives jobs with equal targets one copy of each target and of the queue name', () => {
    const a = readingOf('a', description(record('http://127.0.0.1:9/on-call')));
    const b = readingOf('b', description(record('http://127.0.0.1:9/on-call')));
    expect(a.config?.onSilent).toEqual({ webhook: { url: 'http://127.0.0.1:9/on-call', timeoutMs: 10_000 } });
    expect(b.config?.onSilent).toBe(a.config?.onSilent);
    expect(b.config?.onMissed).toBe(a.config?.onMissed);
    expect(b.alertQueue).toBe(a.alertQueue);
    // Each job keeps a config of its own (its dead-man clock's start differs).
    expect(b.config).not.toBe(a.config);
  });

  it("keeps a job's own targets when they differ", () => {
    const a = readingOf('a', description(record('http://127.0.0.1:9/team-a', 'alerts-a')));
    const b = readingOf('b', description(record('http://127.0.0.1:9/team-b', 'alerts-b')));
    expect(a.config?.onSilent).toEqual({ webhook: { url: 'http://127.0.0.1:9/team-a', timeoutMs: 10_000 } });
    expect(b.config?.onSilent).toEqual({ webhook: { url: 'http://127.0.0.1:9/team-b', timeoutMs: 10_000 } });
    expect([a.alertQueue, b.alertQueue]).toEqual(['alerts-a', 'alerts-b']);
  });

  it('stays right past the bound of values it shares (each job then holds its own)', () => {
    const readings = Array.from({ length: 2_500 }, (_, i) =>
      readingOf(`j${i}`, description(record(`http://127.0.0.1:9/${i % 1_200}`))),
    );
    for (const [i, r] of readings.entries()) {
      expect((r.config?.onMissed as { webhook: { url: string } }).webhook.url).toBe(
        `http://127.0.0.1:9/${i % 1_200}`,
      );
    }
  });
});
