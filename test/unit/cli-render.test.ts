import { describe, expect, it } from 'vitest';
import type { ScheduledJobDescription } from '../../src/client/job-types';
import type { JobRun } from '../../src/client/run-types';
import type { RunDescription } from '../../src/client/run-describe';
import type { DeadLetter } from '../../src/client/dead-letters';
import { renderDeadLetters } from '../../src/cli/render/dead-letter-render';
import { renderJobCard, renderJobList } from '../../src/cli/render/job-render';
import { renderWatchFrame } from '../../src/cli/jobs-watch-command';
import type { RenderContext } from '../../src/cli/render/render-context';
import { renderRunCard, renderRunList } from '../../src/cli/render/run-render';
import { visibleWidth } from '../../src/cli/render/table';
import { relativeTime, whenInWords } from '../../src/cli/render/time-words';
import { jobDstWarnings } from '../../src/client/job-describe';

/*
 * What `tflow` prints, rendered for a fake terminal: `isTTY` picks tables and cards, `color` ANSI colors,
 * `now` the relative times. The integration test (scheduler-cli) runs the real commands.
 */

const NOW = new Date('2027-03-27T22:47:00Z');
const TTY: RenderContext = { isTTY: true, color: false, now: NOW, zone: 'UTC' };
const PIPE: RenderContext = { ...TTY, isTTY: false };
const COLOR: RenderContext = { ...TTY, color: true };
const RED = '\x1b[31m';

const job: ScheduledJobDescription = {
  id: 'etl-nightly',
  foreign: false,
  pipeline: 'etl',
  workflowId: 'etl-nightly',
  trigger: { cron: '30 2 * * *', timezone: 'Europe/Paris' },
  timezone: 'Europe/Paris',
  policies: { misfireGraceTime: '10m' },
  editedOutside: false,
  paused: false,
  note: 'owner: data team',
  nextRunTimes: [
    new Date('2027-03-29T00:30:00Z'),
    new Date('2027-03-30T00:30:00Z'),
    new Date('2027-03-31T00:30:00Z'),
    new Date('2027-04-01T00:30:00Z'),
    new Date('2027-04-02T00:30:00Z'),
    new Date('2027-04-03T00:30:00Z'),
  ],
  recentRuns: [],
  args: ['eu'],
  counters: { actionsTaken: 12, skippedOverlap: 1, missedCatchupWindow: 0, running: 0 },
  createdAt: new Date('2027-03-15T10:00:00Z'),
};
const paused: ScheduledJobDescription = {
  ...job,
  id: 'report',
  pipeline: 'report',
  trigger: { every: '2h' },
  timezone: 'UTC',
  paused: true,
  nextRunTimes: [],
};

const failed: JobRun = {
  workflowId: 'etl-nightly-2027-03-27T01:30:00Z',
  runId: 'r1',
  pipeline: 'etl',
  jobId: 'etl-nightly',
  status: 'failed',
  scheduledAt: new Date('2027-03-27T01:30:00Z'),
  startedAt: new Date('2027-03-27T01:30:01Z'),
  closedAt: new Date('2027-03-27T01:32:13Z'),
  durationMs: 132_000,
  failure: 'pipeline "etl" failed at step "load": connection refused',
};
const skipped: JobRun = {
  ...failed,
  workflowId: 'etl-nightly-2027-03-26T01:30:00Z',
  status: 'skipped',
  skipReason: 'misfire',
  scheduledAt: new Date('2027-03-26T01:30:00Z'),
  judgedAt: new Date('2027-03-26T01:44:59Z'),
  startedAt: new Date('2027-03-26T01:45:00Z'),
  closedAt: new Date('2027-03-26T01:45:00.200Z'),
  durationMs: 200,
};
delete (skipped as Partial<JobRun>).failure;

describe('time words', () => {
  it('says how far an instant is from now, with its local time in the zone', () => {
    expect(relativeTime(new Date('2027-03-28T01:00:30Z'), NOW)).toBe('in 2 h 13 min');
    expect(relativeTime(new Date('2027-03-27T22:44:00Z'), NOW)).toBe('3 min ago');
    expect(relativeTime(NOW, NOW)).toBe('now');
    // The night of the spring change in Paris: 01:00 UTC is 03:00 CEST.
    expect(whenInWords(new Date('2027-03-28T01:00:00Z'), 'Europe/Paris', NOW)).toBe(
      '2027-03-28 03:00 GMT+2 (in 2 h 13 min)',
    );
  });
});

describe('tflow jobs list', () => {
  it('is a table with a header and aligned columns on a terminal', () => {
    const lines = renderJobList([job, paused], TTY);
    expect(lines).toEqual([
      'JOB          PIPELINE  TRIGGER                     NEXT RUN                             STATE',
      'etl-nightly  etl       At 02:30 (Europe/Paris)     2027-03-29 02:30 GMT+2 (in 1 d 1 h)  active',
      'report       report    Every 2 h (counted in UTC)  -                                    paused',
    ]);
  });

  it('stays tab-separated, without a header, when piped', () => {
    expect(renderJobList([job, paused], PIPE)).toEqual([
      'etl-nightly\tetl\tcron 30 2 * * * (Europe/Paris)\t2027-03-29T00:30:00.000Z',
      'report\treport\tevery 2h (UTC)\tpaused',
    ]);
  });

  it('colors paused jobs when the terminal has colors, and aligns the columns all the same', () => {
    const lines = renderJobList([job, paused], COLOR);
    expect(lines[2]).toContain('\x1b[33mpaused');
    expect(lines.slice(1).map(visibleWidth)).toEqual(
      renderJobList([job, paused], TTY)
        .slice(1)
        .map((l) => l.length),
    );
  });

  it('is refreshed by `jobs watch`: the screen cleared on a terminal, a time line when piped', () => {
    const frame = renderWatchFrame([job], TTY, 2000);
    expect(frame.startsWith('\x1b[2J\x1b[H')).toBe(true); // clear the screen, cursor home
    expect(frame.slice(7).split('\n')).toEqual([
      ...renderJobList([job], TTY),
      '',
      'refreshed 22:47:00, every 2 s; Ctrl-C to stop',
    ]);
    expect(renderWatchFrame([job], PIPE, 2000).split('\n')[0]).toBe('# 2027-03-27T22:47:00.000Z');
  });
});

describe('tflow jobs get', () => {
  it('is a card: trigger in words, next 5 runs in the job zone, DST, policies, counters, last runs', () => {
    const lines = renderJobCard({ job, runs: [failed, skipped], dstWarnings: jobDstWarnings(job, NOW) }, TTY);
    expect(lines.join('\n')).toBe(
      [
        'etl-nightly  pipeline etl  active',
        '  Trigger    At 02:30 (Europe/Paris)',
        '             cron 30 2 * * * (Europe/Paris)',
        '  Note       owner: data team',
        '  Next runs  2027-03-29 02:30 GMT+2 (in 1 d 1 h)',
        '             2027-03-30 02:30 GMT+2 (in 2 d 1 h)',
        '             2027-03-31 02:30 GMT+2 (in 3 d 1 h)',
        '             2027-04-01 02:30 GMT+2 (in 4 d 1 h)',
        '             2027-04-02 02:30 GMT+2 (in 5 d 1 h)',
        '  DST        2027-03-28 02:30 Europe/Paris does not exist (clocks go 02:00 -> 03:00): Temporal skips this run',
        '             2028-03-26 02:30 Europe/Paris does not exist (clocks go 02:00 -> 03:00): Temporal skips this run',
        '  Policies   misfireGraceTime 10m',
        '  Counters   12 started, 0 running, 1 skipped (overlap), 0 missed (catch-up window)',
        '  Created    2027-03-15 11:00 GMT+1 (12 d 12 h ago)',
        '  Last runs',
        '    STARTED                                      STATUS             DUE                                                           DURATION    WORKFLOW ID                       ERROR',
        '    2027-03-27 02:30:01 GMT+1 (21 h 16 min ago)  failed             2027-03-27 02:30 GMT+1                                        2 min 12 s  etl-nightly-2027-03-27T01:30:00Z  pipeline "etl" failed at step "load": connection refused',
        '    2027-03-26 02:45 GMT+1 (1 d 21 h ago)        skipped (misfire)  2027-03-26 02:30 GMT+1 (judged at 2027-03-26 02:44:59 GMT+1)  200 ms      etl-nightly-2027-03-26T01:30:00Z',
        '  times in Europe/Paris; now 2027-03-27 23:47 GMT+1',
      ].join('\n'),
    );
  });

  it('says when a paused job runs next: never until resumed', () => {
    const lines = renderJobCard({ job: paused, runs: [], dstWarnings: [] }, TTY);
    expect(lines[0]).toBe('report  pipeline report  paused');
    expect(lines).toContain('  Next runs  paused: no run starts until `tflow jobs resume`');
    expect(lines).toContain('    no runs yet');
  });
});

describe('tflow runs', () => {
  it('is a table with pipeline and job on a terminal, failed runs in red with colors', () => {
    const lines = renderRunList([failed, skipped], COLOR, { empty: 'no runs', withJob: true });
    expect(lines[0]).toContain('STARTED');
    expect(lines[0]).toContain('PIPELINE');
    expect(lines[1]).toContain(`${RED}failed`);
    expect(lines[2]).toContain('\x1b[33mskipped (misfire)');
  });

  it("keeps `jobs history`'s tab-separated lines when piped", () => {
    expect(renderRunList([failed, skipped], PIPE, { empty: 'no runs' })).toEqual([
      '2027-03-27T01:30:01.000Z\tfailed\tdue 2027-03-27T01:30:00.000Z\t132000 ms\tetl-nightly-2027-03-27T01:30:00Z\tpipeline "etl" failed at step "load": connection refused',
      '2027-03-26T01:45:00.000Z\tskipped (misfire)\tdue 2027-03-26T01:30:00.000Z (judged at 2027-03-26T01:44:59.000Z)\t200 ms\tetl-nightly-2027-03-26T01:30:00Z',
    ]);
    expect(renderRunList([], PIPE, { empty: 'no runs' })).toEqual(['no runs']);
  });
});

describe('tflow runs show', () => {
  const run: RunDescription = {
    ...failed,
    failure: 'connection refused',
    args: ['eu'],
    steps: [
      {
        id: 'extract',
        activity: 'extract',
        status: 'completed',
        attempts: 1,
        scheduledAt: failed.startedAt,
        durationMs: 1500,
      },
      {
        id: 'load',
        activity: 'load',
        status: 'failed',
        attempts: 3,
        scheduledAt: failed.startedAt,
        durationMs: 130_000,
        error: 'connection refused',
        errorType: 'DbError',
      },
    ],
    compensations: [
      {
        id: 'extract:compensate',
        activity: 'dropStaging',
        status: 'completed',
        attempts: 1,
        scheduledAt: failed.startedAt,
        durationMs: 40,
      },
    ],
    hooks: [],
    failureDetails: {
      pipeline: 'etl',
      failedStep: 'load',
      attempts: 3,
      input: [],
      message: 'connection refused',
      errorType: 'DbError',
      completedSteps: ['extract'],
      failedNode: 'load',
      nodeInputs: { extract: ['eu'], load: [{ rows: 10 }] },
    },
  };

  it('shows the steps with durations, attempts and errors, the compensations, and how to redrive', () => {
    expect(renderRunCard(run, TTY).join('\n')).toBe(
      [
        'etl-nightly-2027-03-27T01:30:00Z  failed',
        '  Pipeline   etl  (job etl-nightly)',
        '  Started    2027-03-27 01:30:01 UTC (21 h 16 min ago)',
        '  Due        2027-03-27 01:30 UTC',
        '  Closed     2027-03-27 01:32:13 UTC (21 h 14 min ago), after 2 min 12 s',
        '  Run id     r1',
        '  Failed     step load after 3 attempts: DbError: connection refused',
        '',
        '  Steps',
        '    STEP     ACTIVITY  STATUS     ATTEMPTS  DURATION    ERROR',
        '    extract  extract   completed  1         1 s',
        '    load     load      failed     3         2 min 10 s  DbError: connection refused',
        '',
        '  Compensations',
        '    STEP                ACTIVITY     STATUS     ATTEMPTS  DURATION  ERROR',
        '    extract:compensate  dropStaging  completed  1         40 ms',
        '',
        '  Redrive from the failed step:  tflow dead-letters redrive etl-nightly-2027-03-27T01:30:00Z',
        '  or from an earlier one:         --from extract | load',
        '  times in UTC',
      ].join('\n'),
    );
  });

  it('colors the failure red when the terminal has colors', () => {
    expect(renderRunCard(run, COLOR).find((l) => l.includes('Failed'))).toContain(RED);
  });
});

describe('tflow dead-letters', () => {
  const letter: DeadLetter = {
    workflowId: 'etl-nightly-2027-03-27T01:30:00Z',
    lastWorkflowId: 'etl-nightly-2027-03-27T01:30:00Z-redrive-1a2b3c4d',
    runId: 'r2',
    pipeline: 'etl',
    failedStep: 'load',
    message: 'connection\nrefused',
    failures: 2,
    startTime: new Date('2027-03-27T21:40:00Z'),
    closeTime: new Date('2027-03-27T21:44:00Z'),
  };

  it('is a table on a terminal, failure time in words, the error on one line in red with colors', () => {
    expect(renderDeadLetters([letter], TTY)).toEqual([
      'FAILED                                PIPELINE  FAILED STEP  FAILURES  WORKFLOW ID                       ERROR',
      '2027-03-27 21:44 UTC (1 h 3 min ago)  etl       load         2         etl-nightly-2027-03-27T01:30:00Z  connection refused',
    ]);
    expect(renderDeadLetters([letter], COLOR)[1]).toContain(`${RED}connection refused`);
  });

  it('is tab-separated rows when piped, and says when the queue is empty', () => {
    expect(renderDeadLetters([letter], PIPE)).toEqual([
      '2027-03-27T21:44:00.000Z\tetl\tload\t2\tetl-nightly-2027-03-27T01:30:00Z\tconnection refused',
    ]);
    expect(renderDeadLetters([], TTY)).toEqual(['no dead letters']);
  });
});
