import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

/** `npx tsx examples/schedule-time-travel.ts` as a user runs it: no server needed. */
async function runExample(): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/schedule-time-travel.ts'], {
    cwd: path.resolve(__dirname, '../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, lines: out.split('\n').filter(Boolean) };
}

it(
  'examples/schedule-time-travel.ts: the Paris nightly job around DST and a deploy, and the Santiago year',
  { timeout: 60_000 },
  async () => {
    const { code, lines } = await runExample();
    expect(code).toBe(0);
    expect(lines).toEqual([
      // 02:30 CET is 01:30Z; 2027-03-28 02:30 does not exist in Paris (02:00 -> 03:00): Temporal fires nothing.
      'paris 2027-03-26T01:30:00.000Z ran',
      'paris 2027-03-27T01:30:00.000Z ran',
      // 02:30 CEST is 00:30Z; the workers come back at 00:45Z: 15 minutes late, past the 10-minute grace.
      'paris 2027-03-29T00:30:00.000Z skipped (misfire)',
      'paris 2027-03-30T00:30:00.000Z ran',
      // 26 h after the run of the 27th; no run on the 28th, none on the 29th (skipped) until the 30th.
      'paris alert silent at 2027-03-28T03:30:00.000Z',
      'paris alert missed at 2027-03-29T00:45:00.000Z',
      'paris alert recovered at 2027-03-30T00:30:00.000Z',
      'paris rows loaded: 6',
      // 52 Sundays in 2027; on 2027-09-05 Santiago's midnight does not exist and Temporal reads it as Saturday.
      "santiago the server's raw reading (dst: {}): 51 Sundays ran; first week of September: none",
      'santiago by default: 52 Sundays ran; first week of September: 2027-09-05T05:30:00.000Z',
      expect.stringMatching(/^done in \d+ ms$/),
    ]);
  },
);
