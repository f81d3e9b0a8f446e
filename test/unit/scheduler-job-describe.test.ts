import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ScheduleSummary } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { isSpentOneOff, jobFromSummary } from '../../src/client/jobs/job-describe';
import {
  encodeListedRecord,
  decodeJobRecord,
  JOB_RECORD_MEMO_KEY,
} from '../../src/client/jobs/store/job-record';
import { splitOptions, checkArgs } from '../../src/client/jobs/store/job-options';
import { JOB_SEARCH_ATTRIBUTE } from '../../src/workflows/search-attributes';
import type { ScheduledJobDescription, ScheduledJobSummary } from '../../src/client/jobs/job-types';

const calendar = {
  second: [{ start: 0, end: 0, step: 1 }],
  minute: [{ start: 0, end: 0, step: 1 }],
  hour: [{ start: 2, end: 2, step: 1 }],
  dayOfMonth: [{ start: 1, end: 31, step: 1 }],
  month: [{ start: 'JANUARY', end: 'DECEMBER', step: 1 }],
  year: [],
  dayOfWeek: [{ start: 'SUNDAY', end: 'SATURDAY', step: 1 }],
} as const;

function summary(over: Partial<ScheduleSummary>): ScheduleSummary {
  return {
    scheduleId: 'job-1',
    spec: { calendars: [calendar], intervals: [], skip: [], timezone: 'Europe/Paris' },
    action: { type: 'startWorkflow', workflowType: 'pipelineWorkflow' },
    memo: { tflow: { v: 1, pipeline: 'etl' } },
    typedSearchAttributes: new TypedSearchAttributes([
      {
        key: JOB_SEARCH_ATTRIBUTE,
        value: encodeListedRecord({
          v: 1,
          trigger: { cron: '0 2 * * *', timezone: 'Europe/Paris' },
          timezone: 'Europe/Paris',
          policies: { misfireGraceTime: '10m' },
        })!,
      },
    ]),
    state: { paused: false },
    info: { recentActions: [], nextActionTimes: [new Date('2030-01-01T01:00:00Z')] },
    ...over,
  } as ScheduleSummary;
}

describe('jobs from schedule listings', () => {
  it('returns our job with its trigger and policies as given', () => {
    expect(jobFromSummary(summary({}))).toMatchObject({
      foreign: false,
      id: 'job-1',
      pipeline: 'etl',
      trigger: { cron: '0 2 * * *', timezone: 'Europe/Paris' },
      policies: { misfireGraceTime: '10m' },
      editedOutside: false,
    });
  });

  it('summarises a job without the fields only a description carries', () => {
    const job = jobFromSummary(summary({}));
    for (const field of ['args', 'alerts', 'counters', 'remainingActions', 'createdAt', 'updatedAt']) {
      expect(job).not.toHaveProperty(field);
    }
    expectTypeOf<ScheduledJobSummary>().not.toHaveProperty('args');
    expectTypeOf<ScheduledJobSummary>().not.toHaveProperty('counters');
    // Alert targets can hold secrets: kept in the memo (encrypted by a codec), never in what listings read.
    expectTypeOf<ScheduledJobSummary>().not.toHaveProperty('alerts');
    expectTypeOf<ScheduledJobDescription['args']>().toEqualTypeOf<unknown[]>();
    expectTypeOf<ScheduledJobDescription['createdAt']>().toEqualTypeOf<Date>();
  });

  it('lists a schedule without our memo, or running another workflow, as foreign', () => {
    expect(jobFromSummary(summary({ memo: {} }))).toMatchObject({ foreign: true, id: 'job-1' });
    expect(
      jobFromSummary(summary({ action: { type: 'startWorkflow', workflowType: 'otherWorkflow' } })),
    ).toEqual({
      foreign: true,
      id: 'job-1',
      paused: false,
      nextRunTimes: [new Date('2030-01-01T01:00:00Z')],
      recentRuns: [],
      workflowType: 'otherWorkflow',
    });
  });

  it('falls back to the trigger the spec means when the record is missing', () => {
    const job = jobFromSummary(summary({ typedSearchAttributes: new TypedSearchAttributes([]) }));
    expect(job).toMatchObject({ trigger: { cron: '0 2 * * *', timezone: 'Europe/Paris' }, policies: {} });
  });

  it('tells a spent one-off (no next run, its own run taken) from a pending one and from one owing its run', () => {
    const record = encodeListedRecord({
      v: 1,
      trigger: { runAt: '2030-01-01T00:00:00Z' },
      timezone: 'UTC',
      policies: {},
    })!;
    const attrs = new TypedSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTE, value: record }]);
    const action = {
      // Its own run stands for its runAt (scheduled, or backfilled when it was due).
      scheduledAt: new Date('2030-01-01T00:00:00Z'),
      takenAt: new Date(),
      action: { type: 'startWorkflow' as const, workflow: { workflowId: 'w', firstExecutionRunId: 'r' } },
    };
    const one = (n: number) => [{ start: n, end: n, step: 1 }];
    // The calendar Temporal keeps for that single instant.
    const spec = {
      calendars: [
        {
          ...calendar,
          hour: one(0),
          dayOfMonth: one(1),
          month: [{ start: 'JANUARY', end: 'JANUARY', step: 1 }],
          year: one(2030),
        },
      ],
      intervals: [],
      skip: [],
      timezone: 'UTC',
    } as unknown as ScheduleSummary['spec'];
    const spent = summary({
      spec,
      typedSearchAttributes: attrs,
      info: { recentActions: [action], nextActionTimes: [] },
    });
    const pending = summary({ spec, typedSearchAttributes: attrs });
    expect(jobFromSummary(spent)).toMatchObject({
      editedOutside: false,
      trigger: { runAt: '2030-01-01T00:00:00Z' },
    });
    expect(isSpentOneOff(jobFromSummary(spent))).toBe(true);
    expect(isSpentOneOff(jobFromSummary(pending))).toBe(false);
    // Rewritten with replaceExisting from a job that had run: that run stands for an earlier time, and
    // the one-off, whose own run is still owed, stays listed.
    const owing = summary({
      spec,
      typedSearchAttributes: attrs,
      info: {
        recentActions: [{ ...action, scheduledAt: new Date('2029-12-31T23:00:00Z') }],
        nextActionTimes: [],
      },
    });
    expect(isSpentOneOff(jobFromSummary(owing))).toBe(false);
  });
});

describe('job records', () => {
  it('prefers the action memo (strongly consistent) over the search attribute', () => {
    const attrs = new TypedSearchAttributes([
      {
        key: JOB_SEARCH_ATTRIBUTE,
        value: JSON.stringify({ v: 1, trigger: { every: '1h' }, timezone: 'UTC', policies: {} }),
      },
    ]);
    const memo = { [JOB_RECORD_MEMO_KEY]: { v: 1, trigger: { every: '2h' }, timezone: 'UTC', policies: {} } };
    expect(decodeJobRecord(attrs, memo)?.trigger).toEqual({ every: '2h' });
    expect(decodeJobRecord(attrs)?.trigger).toEqual({ every: '1h' });
    expect(
      decodeJobRecord(new TypedSearchAttributes([{ key: JOB_SEARCH_ATTRIBUTE, value: 'not json' }])),
    ).toBe(undefined);
  });

  it('does not store a record past the 2 KB search attribute limit', () => {
    const long = {
      v: 1 as const,
      trigger: { cron: '0 2 * * *' },
      timezone: 'UTC',
      policies: {},
      onError: 'x'.repeat(2_100),
    };
    expect(encodeListedRecord(long)).toBe(undefined);
  });
});

describe('job options', () => {
  it('splits trigger, job and policy options', () => {
    expect(
      splitOptions({
        cron: '0 2 * * *',
        timezone: 'UTC',
        jobId: 'a',
        args: [1],
        maxInstances: 2,
        note: undefined,
      }),
    ).toEqual({
      trigger: { cron: '0 2 * * *', timezone: 'UTC' },
      job: { jobId: 'a', args: [1] },
      policies: { maxInstances: 2 },
    });
  });

  it('names the allowed options when one is unknown', () => {
    expect(() => splitOptions({ cron: '0 2 * * *', max_instances: 2 } as never)).toThrow(
      'unknown job option "max_instances"; allowed: cron, calendar, every, seconds, minutes, hours, days, weeks, offset, runAt, timezone, exclude, businessDays, dst, jobId, workflowId, args, note, paused, replaceExisting, onError, priority, onMissed, onLate, lateAfter, expectSuccessWithin, onSilent, maxInstances, coalesce, misfireGraceTime, overlap, catchupWindow, pauseOnFailure, jitter, startAt, endAt',
    );
  });

  it('wants args as an array', () => {
    expect(checkArgs(undefined)).toEqual([]);
    expect(() => checkArgs('eu')).toThrow('args must be an array: the arguments of the first step');
  });
});
