import { describe, expect, it } from 'vitest';
import { encodeJobRecord, MAX_RECORD_BYTES, type JobRecord } from '../../src/client/job-record';

const record = (note: string): JobRecord => ({
  v: 1,
  trigger: { cron: '0 2 * * *', comment: note } as JobRecord['trigger'],
  timezone: 'Europe/Paris',
  policies: {},
});

describe('the TflowJob search attribute', () => {
  it('holds a record of at most 255 UTF-8 bytes: SQL visibility keeps a Keyword in varchar(255)', () => {
    expect(MAX_RECORD_BYTES).toBe(255);
    const short = encodeJobRecord(record('nightly'));
    expect(short && JSON.parse(short)).toEqual(record('nightly'));
    // On PostgreSQL a longer value failed the schedule's visibility task for good: the job never listed.
    expect(encodeJobRecord(record('x'.repeat(300)))).toBeUndefined();
  });

  it('counts bytes, not characters (a multi-byte note fills it sooner)', () => {
    const base = Buffer.byteLength(JSON.stringify(record('')), 'utf8');
    const room = MAX_RECORD_BYTES - base;
    expect(encodeJobRecord(record('a'.repeat(room)))).toBeDefined();
    expect(encodeJobRecord(record('é'.repeat(Math.ceil(room / 2) + 1)))).toBeUndefined();
  });
});
