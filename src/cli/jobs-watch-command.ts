import type { Command } from 'commander';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TflowEnv } from '../config';
import { parseDuration } from '../parse/duration';
import type { JobSummary } from '../client/jobs/job-types';
import {
  cliScheduler,
  positiveInteger,
  withClient,
  withExamples,
  type SessionFlags,
} from './command-session';
import { renderJobList } from './render/job-render';
import { paint, processRenderContext, type RenderContext } from './render/render-context';
import { durationInWords } from '../schedule/trigger-words';

/** Clears a terminal and puts the cursor home, so each refresh replaces the last. */
const CLEAR = '\x1b[2J\x1b[H';

/**
 * One refresh of `tflow jobs watch`: on a terminal the screen is cleared and the table drawn with a
 * footer; elsewhere the tab-separated lines follow a `# <ISO time>` line, so a log keeps every refresh.
 */
export function renderWatchFrame(jobs: JobSummary[], ctx: RenderContext, intervalMs: number): string {
  if (!ctx.isTTY) return [`# ${ctx.now.toISOString()}`, ...renderJobList(jobs, ctx)].join('\n');
  const p = paint(ctx);
  const footer = p.dim(
    `refreshed ${ctx.now.toLocaleTimeString('en-GB', { timeZone: ctx.zone })}, every ${durationInWords(intervalMs)}; Ctrl-C to stop`,
  );
  return `${CLEAR}${[...renderJobList(jobs, ctx), '', footer].join('\n')}`;
}

/** `tflow jobs watch`: the job list, refreshed until Ctrl-C (or `--times` refreshes). */
export function registerJobsWatch(jobs: Command, env: TflowEnv): void {
  withExamples(
    jobs
      .command('watch')
      .description(
        'the job list, refreshed live (next runs count down) until Ctrl-C; `--json` prints one line per refresh',
      )
      .option('--pipeline <name>', 'only jobs of this pipeline')
      .option('--interval <duration>', 'time between refreshes', '2s')
      .option('--times <n>', 'stop after this many refreshes', positiveInteger)
      .action(async (opts: { pipeline?: string; interval: string; times?: number }, cmd: Command) => {
        const intervalMs = parseDuration(opts.interval, '--interval');
        const { json } = cmd.optsWithGlobals<SessionFlags>();
        await withClient(env, cmd, async (client) => {
          const scheduler = cliScheduler(client, env);
          for (let i = 0; opts.times === undefined || i < opts.times; i++) {
            if (i > 0) await sleep(intervalMs);
            const list = await scheduler.listJobs(opts.pipeline ? { pipeline: opts.pipeline } : {});
            console.log(
              json ? JSON.stringify(list) : renderWatchFrame(list, processRenderContext(env), intervalMs),
            );
          }
        });
      }),
    'tflow jobs watch --pipeline etl --interval 5s',
  );
}
