import type { Command } from 'commander';
import type { TflowEnv } from '../config';
import type { JobDryRun, TimeSpan } from '../schedule/dry-run-types';
import { InvalidWindowError } from '../schedule/errors';
import { cliScheduler, runAndPrint, withExamples } from './command-session';
import type { RenderContext } from './render/render-context';
import { renderTable } from './render/table';
import { localTime } from './render/time-words';
import { durationInWords } from '../schedule/trigger-words';

interface DryRunFlags {
  from: string;
  to: string;
  runDuration?: string;
  workersDown?: TimeSpan[];
}

/** `--workers-down 2027-01-01T00:30:00Z..2027-01-01T01:05:00Z`, repeatable. */
function collectSpan(value: string, previous: TimeSpan[] = []): TimeSpan[] {
  const [from, to, ...rest] = value.split('..');
  if (!from || !to || rest.length > 0) {
    throw new InvalidWindowError(
      '--workers-down',
      `--workers-down takes a span "<from>..<to>" of ISO instants, e.g. 2027-01-01T00:30:00Z..2027-01-01T01:05:00Z, got "${value}"`,
    );
  }
  return [...previous, { from, to }];
}

/** One line per occurrence: due (local), decision, when it starts or was judged, and what it stood for. */
export function renderDryRun(r: JobDryRun, ctx: RenderContext): string[] {
  const when = (iso: string | undefined) => (iso ? localTime(new Date(iso), r.timezone) : '');
  const rows = r.occurrences.map((o) => [
    when(o.nominal),
    o.reason ? `${o.decision} (${o.reason})` : o.decision,
    o.startsAt ? `starts ${when(o.startsAt)}` : o.judgedAt ? `judged ${when(o.judgedAt)}` : '',
    [
      o.lateMs ? `${durationInWords(o.lateMs)} late` : '',
      o.standsFor ? `stands for ${when(o.standsFor)}` : '',
      o.coalescedInto ? `into the run due ${when(o.coalescedInto)}` : '',
      o.cutShort ? `${o.cutShort} at ${when(o.endsAt)}` : '',
    ]
      .filter(Boolean)
      .join(', '),
  ]);
  const lines = renderTable(['DUE', 'DECISION', 'WHEN', 'NOTE'], rows, ctx);
  if (!ctx.isTTY) return lines;
  const totals = Object.entries(r.totals).map(([k, n]) => `${n} ${k}`);
  return [
    ...lines,
    '',
    `${r.occurrences.length} occurrences: ${totals.join(', ') || 'none'}`,
    ...r.excludedDates.map((e) => `excluded ${e.date}: ${e.reason}`),
    ...r.dstWarnings.map((w) => `DST: ${w.message}`),
  ];
}

/** `tflow jobs dry-run <jobId> --from --to`: what the job would do in a window, nothing started. */
export function registerJobsDryRun(jobs: Command, env: TflowEnv): void {
  withExamples(
    jobs
      .command('dry-run <jobId>')
      .description(
        "what a job would do in a window: each occurrence with its overlap and misfire decision, as the job's policies and DST policy decide (nothing is started)",
      )
      .requiredOption('--from <instant>', 'occurrences after this ISO 8601 instant')
      .requiredOption('--to <instant>', 'up to this one (at most 1,000 occurrences)')
      .option('--run-duration <duration>', 'assume each run takes this long, e.g. 10m (default: no time)')
      .option(
        '--workers-down <from..to>',
        'assume no worker in this span: due runs wait, then the guards judge them; repeatable',
        collectSpan,
      )
      .action(async (jobId: string, flags: DryRunFlags, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          const r = await cliScheduler(client, env).dryRun(jobId, {
            from: flags.from,
            to: flags.to,
            ...(flags.runDuration ? { runDuration: flags.runDuration } : {}),
            ...(flags.workersDown ? { workersDown: flags.workersDown } : {}),
          });
          return { json: r, text: (ctx) => renderDryRun(r, ctx) };
        }),
      ),
    'tflow jobs dry-run etl-nightly --from 2027-03-27T00:00:00Z --to 2027-04-03T00:00:00Z',
    'tflow jobs dry-run sync --from 2027-01-01T00:00:00Z --to 2027-01-01T06:00:00Z --run-duration 25m --workers-down 2027-01-01T01:00:00Z..2027-01-01T02:30:00Z',
  );
}
