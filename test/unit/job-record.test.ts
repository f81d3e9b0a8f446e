import { describe, expect, it } from 'vitest';
import type { ScheduleSummary } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { jobFromSummary } from '../../src/client/jobs/job-describe';
import {
  decodeJobRecord,
  encodeListedRecord,
  MAX_RECORD_BYTES,
  type JobRecord,
} from '../../src/client/jobs/store/job-record';
import { JOB_SEARCH_ATTRIBUTE } from '../../src/workflows/search-attributes';

const record = (note: string): JobRecord => ({
  v: 1,
  trigger: { cron: '0 2 * * *', comment: note } as JobRecord['trigger'],
  timezone: 'Europe/Paris',
  policies: {},
});

const SECRET = 'xoxb-SECRET-0123456789';
/** A short record with a Slack dead-man switch and an authorization header: it fits in 255 bytes whole. */
const withAlerts: JobRecord = {
  v: 1,
  trigger: { every: '1h' },
  timezone: 'UTC',
  policies: { maxInstances: 1 },
  onError: 'notify',
  alerts: {
    expectSuccessWithin: '26h',
    onSilent: { webhook: { url: `https://hooks.example/T0/${SECRET}` } },
    onLate: { webhook: { url: 'https://ops.example/hook', headers: { authorization: `Bearer ${SECRET}` } } },
    lateAfter: '5m',
  },
};

describe('the TflowJob search attribute', () => {
  it('holds a record of at most 255 UTF-8 bytes: SQL visibility keeps a Keyword in varchar(255)', () => {
    expect(MAX_RECORD_BYTES).toBe(255);
    const short = encodeListedRecord(record('nightly'));
    expect(short && JSON.parse(short)).toEqual(record('nightly'));
    // On PostgreSQL a longer value failed the schedule's visibility task for good: the job never listed.
    expect(encodeListedRecord(record('x'.repeat(300)))).toBeUndefined();
  });

  it('counts bytes, not characters (a multi-byte note fills it sooner)', () => {
    const base = Buffer.byteLength(JSON.stringify(record('')), 'utf8');
    const room = MAX_RECORD_BYTES - base;
    expect(encodeListedRecord(record('a'.repeat(room)))).toBeDefined();
    expect(encodeListedRecord(record('é'.repeat(Math.ceil(room / 2) + 1)))).toBeUndefined();
  });

  it('never holds alert targets: search attributes are not encrypted, and anyone who lists schedules reads them', () => {
    const text = encodeListedRecord(withAlerts)!;
    expect(JSON.parse(text)).toEqual({
      v: 1,
      trigger: { every: '1h' },
      timezone: 'UTC',
      policies: { maxInstances: 1 },
      onError: 'notify',
    });
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('hooks.example');
  });

  it('reads past the alerts of an attribute written before they were kept out (listings keep working)', () => {
    const attrs = new TypedSearchAttributes([
      { key: JOB_SEARCH_ATTRIBUTE, value: JSON.stringify(withAlerts) },
    ]);
    const { alerts: _alerts, ...listed } = withAlerts;
    expect(decodeJobRecord(attrs)).toEqual(listed);
    // The memo keeps the whole record: getJob() still returns the alerts.
    expect(decodeJobRecord(attrs, { tflowJob: withAlerts })).toEqual(withAlerts);
    const job = jobFromSummary({
      scheduleId: 'old-job',
      spec: { calendars: [], intervals: [{ every: 3_600_000, offset: 0 }], skip: [], timezone: 'UTC' },
      action: { type: 'startWorkflow', workflowType: 'pipelineWorkflow' },
      memo: { tflow: { v: 1, pipeline: 'etl' } },
      typedSearchAttributes: attrs,
      state: { paused: false },
      info: { recentActions: [], nextActionTimes: [] },
    } as unknown as ScheduleSummary);
    expect(job).toMatchObject({ foreign: false, trigger: { every: '1h' }, onError: 'notify' });
    expect(job).not.toHaveProperty('alerts');
    expect(JSON.stringify(job)).not.toContain(SECRET);
  });
});
