import type { Command } from 'commander';
import type { TflowEnv } from '../config';
import { jobDstWarnings } from '../client/jobs/job-describe';
import type { PipelineScheduler } from '../client/jobs/pipeline-scheduler';
import type { JobStats } from '../client/jobs/job-types';
import { withConnectionFlags } from './connection';
import {
  cliScheduler,
  positiveInteger,
  runAndPrint,
  withExamples,
  type CommandOutput,
  type SessionFlags,
} from './command-session';
import { processRenderContext } from './render/render-context';
import { renderJobCard, renderJobList } from './render/job-render';
import { renderRunList } from './render/run-render';
import { registerJobsWatch } from './jobs-watch-command';
import { registerJobsDryRun } from './jobs-dry-run-command';

function statsLines(s: JobStats): string[] {
  return [
    `jobs: ${s.jobs} (paused ${s.paused}, foreign schedules ${s.foreign})`,
    `running: ${s.running}`,
    `next run: ${s.nextRun ? `${s.nextRun.at.toISOString()} (${s.nextRun.jobId})` : '-'}`,
    `missed: ${s.missed}`,
    `skipped: ${s.skipped}`,
    `failing jobs: ${s.failingJobs.length > 0 ? s.failingJobs.join(', ') : '-'}`,
  ];
}

/**
 * `tflow jobs list|get|watch|pause|resume|trigger|dry-run|remove|history|stats`: manage scheduled jobs of any
 * Temporal server (`--address`, `--namespace`, default TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE). Tables and
 * cards on a terminal, tab-separated lines when piped, `--json` for scripts.
 */
export function registerJobCommands(program: Command, env: TflowEnv): Command {
  const jobs = withConnectionFlags(
    program
      .command('jobs')
      .description('manage scheduled jobs (Temporal Schedules created by temporal-flow)'),
    env,
  ).option('--json', 'print JSON');

  const run = (cmd: Command, fn: (s: PipelineScheduler) => Promise<CommandOutput>) =>
    runAndPrint(env, cmd, (client) => fn(cliScheduler(client, env)));
  const done = (json: Record<string, unknown>, text: string): CommandOutput => ({
    json: { ok: true, ...json },
    text: () => [text],
  });

  withExamples(
    jobs
      .command('list')
      .description('list jobs: id, pipeline, trigger in words, next run, state (tab-separated when piped)')
      .option('--pipeline <name>', 'only jobs of this pipeline')
      .action(async (opts: { pipeline?: string }, cmd: Command) =>
        run(cmd, async (s) => {
          const list = await s.listJobs(opts.pipeline ? { pipeline: opts.pipeline } : {});
          return { json: list, text: (ctx) => renderJobList(list, ctx) };
        }),
      ),
    'tflow jobs list --pipeline etl',
  );
  withExamples(
    jobs
      .command('get <jobId>')
      .description(
        'show a job: trigger in words, next 5 runs, DST warnings, policies, counters, last runs (JSON when piped)',
      )
      .action(async (jobId: string, _opts: unknown, cmd: Command) =>
        run(cmd, async (s) => {
          const job = await s.getJob(jobId);
          const dstWarnings = jobDstWarnings(job);
          const shown = job.foreign ? job : { ...job, dstWarnings };
          // The last runs are one more call, made only for the card (JSON never had them).
          const card = !cmd.optsWithGlobals<SessionFlags>().json && processRenderContext(env).isTTY;
          const runs = card && !job.foreign ? await s.getHistory(jobId, { limit: 5 }) : [];
          return {
            json: shown,
            text: (ctx) =>
              ctx.isTTY ? renderJobCard({ job, runs, dstWarnings }, ctx) : [JSON.stringify(shown, null, 2)],
          };
        }),
      ),
    'tflow jobs get etl-nightly',
  );
  registerJobsWatch(jobs, env);
  for (const [verb, description] of [
    ['pause', 'pause a job (runs in flight continue)'],
    ['resume', 'resume a paused job'],
  ] as const) {
    withExamples(
      jobs
        .command(`${verb} <jobId>`)
        .description(description)
        .option('--note <text>', 'why (shown with the job)')
        .action(async (jobId: string, opts: { note?: string }, cmd: Command) =>
          run(cmd, async (s) => {
            await (verb === 'pause' ? s.pauseJob(jobId, opts.note) : s.resumeJob(jobId, opts.note));
            return done(
              { jobId, paused: verb === 'pause' },
              `${verb === 'pause' ? 'paused' : 'resumed'} ${jobId}`,
            );
          }),
        ),
      `tflow jobs ${verb} etl-nightly --note "database maintenance"`,
    );
  }
  withExamples(
    jobs
      .command('trigger <jobId>')
      .description("run a job now, with the job's overlap policy")
      .action(async (jobId: string, _opts: unknown, cmd: Command) =>
        run(cmd, async (s) => {
          await s.triggerJob(jobId);
          return done({ jobId }, `triggered ${jobId}`);
        }),
      ),
    'tflow jobs trigger etl-nightly',
  );
  registerJobsDryRun(jobs, env);
  withExamples(
    jobs
      .command('remove <jobId>')
      .description('delete a job (a run in flight continues)')
      .action(async (jobId: string, _opts: unknown, cmd: Command) =>
        run(cmd, async (s) => {
          await s.removeJob(jobId);
          return done({ jobId }, `removed ${jobId}`);
        }),
      ),
    'tflow jobs remove etl-nightly',
  );
  withExamples(
    jobs
      .command('history <jobId>')
      .description('past runs of a job, newest first (see `tflow runs show <workflow id>` for one run)')
      .option('--limit <n>', 'most runs shown', positiveInteger, 20)
      .action(async (jobId: string, opts: { limit: number }, cmd: Command) =>
        run(cmd, async (s) => {
          const runs = await s.getHistory(jobId, { limit: opts.limit });
          return { json: runs, text: (ctx) => renderRunList(runs, ctx, { empty: 'no runs' }) };
        }),
      ),
    'tflow jobs history etl-nightly --limit 5',
  );
  withExamples(
    jobs
      .command('stats')
      .description('jobs, paused, running, next run, missed, skipped, failing jobs')
      .action(async (_opts: unknown, cmd: Command) =>
        run(cmd, async (s) => {
          const stats = await s.getStats();
          return { json: stats, text: () => statsLines(stats) };
        }),
      ),
    'tflow jobs stats --json',
  );
  return jobs;
}
