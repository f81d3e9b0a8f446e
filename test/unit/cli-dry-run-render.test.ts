import { describe, expect, it } from 'vitest';
import { dryRun } from '../../src/client/jobs/job-dry-run';
import { renderDryRun } from '../../src/cli/jobs-dry-run-command';
import type { RenderContext } from '../../src/cli/render/render-context';

/* `tflow jobs dry-run`'s text: one row per occurrence (tab-separated when piped), totals on a terminal. */

const r = dryRun(
  { every: '10m', misfireGraceTime: '15m', timezone: 'Europe/Paris' },
  {
    from: '2027-01-01T00:00:00Z',
    to: '2027-01-01T00:40:00Z',
    workersDown: [{ from: '2027-01-01T00:05:00Z', to: '2027-01-01T00:35:00Z' }],
  },
);
const ctx = (isTTY: boolean): RenderContext => ({
  isTTY,
  color: false,
  now: new Date('2027-01-01T00:00:00Z'),
  zone: 'UTC',
});

describe('renderDryRun', () => {
  it('piped: one tab-separated row per occurrence, in the job zone', () => {
    expect(renderDryRun(r, ctx(false))).toEqual([
      '2027-01-01 01:10 GMT+1\trun\tstarts 2027-01-01 01:35 GMT+1\t5 min late, stands for 2027-01-01 01:30 GMT+1',
      '2027-01-01 01:20 GMT+1\tcoalesced\t\tinto the run due 2027-01-01 01:10 GMT+1',
      '2027-01-01 01:30 GMT+1\tcoalesced\t\tinto the run due 2027-01-01 01:10 GMT+1',
      '2027-01-01 01:40 GMT+1\trun\tstarts 2027-01-01 01:40 GMT+1',
    ]);
  });

  it('on a terminal: a header and the totals', () => {
    const lines = renderDryRun(r, ctx(true));
    expect(lines[0]).toMatch(/^DUE\s+DECISION\s+WHEN\s+NOTE$/);
    expect(lines.at(-1)).toBe('4 occurrences: 2 run, 2 coalesced');
  });
});
