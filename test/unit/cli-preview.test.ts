import { describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/main';
import { InvalidTriggerError } from '../../src/schedule/errors';

/** Runs `tflow preview ...` in process and returns what it printed. */
async function tflow(...args: string[]): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  try {
    await buildProgram().parseAsync(['node', 'tflow', 'preview', ...args]);
    return log.mock.calls.map((c) => String(c[0])).join('\n');
  } finally {
    log.mockRestore();
  }
}

describe('tflow preview (local, no server)', () => {
  it('lists fire times in local time and UTC and the DST dates of the coming year', async () => {
    const out = await tflow(
      '30 2 * * *',
      '--tz',
      'Europe/Paris',
      '-n',
      '3',
      '--from',
      '2027-03-26T00:00:00Z',
    );
    expect(out.split('\n').slice(0, 3)).toEqual([
      '2027-03-26T02:30:00+01:00\t(2027-03-26T01:30:00Z)',
      '2027-03-27T02:30:00+01:00\t(2027-03-27T01:30:00Z)',
      // 2027-03-28 02:30 does not exist in Paris: Temporal skips it.
      '2027-03-29T02:30:00+02:00\t(2027-03-29T00:30:00Z)',
    ]);
    expect(out).toContain(
      '- 2027-03-28 02:30 Europe/Paris does not exist (clocks go 02:00 -> 03:00): Temporal skips this run',
    );
  });

  it('previews an interval anchored by an offset', async () => {
    const out = await tflow(
      '--every',
      '2h',
      '--offset',
      '1h',
      '-n',
      '2',
      '--from',
      '2027-01-01T00:00:00Z',
      '--json',
    );
    expect((JSON.parse(out) as { fireTimes: { utc: string }[] }).fireTimes.map((t) => t.utc)).toEqual([
      '2027-01-01T01:00:00Z',
      '2027-01-01T03:00:00Z',
    ]);
  });

  it('says what to give when the trigger is missing or doubled', async () => {
    await expect(tflow()).rejects.toBeInstanceOf(InvalidTriggerError);
    await expect(tflow('0 2 * * *', '--every', '1h')).rejects.toThrow(
      'give either a cron expression or --every <duration>, e.g. tflow preview "0 2 * * *"',
    );
  });
});
