import type { Command } from 'commander';
import { Client } from '@temporalio/client';
import { payloadCodecFromEnv, type TflowEnv } from '../config';
import { codecDataConverter } from '../codec/data-converter';
import { jobDstWarnings } from '../client/job-describe';
import { PipelineScheduler } from '../client/pipeline-scheduler';
import type { JobRun, JobStats, JobSummary } from '../client/job-types';
import { withConnection, withConnectionFlags, type ConnectionFlags } from './connection';

/** Where a job's trigger is shown in one line: `cron 0 2 * * * (Europe/Paris)`. */
function describeTrigger(job: JobSummary): string {
  if (job.foreign) return `(foreign: ${job.workflowType ?? 'unknown action'})`;
  const t = job.trigger as Record<string, unknown>;
  const what = Object.entries(t)
    .filter(([k]) => k !== 'timezone')
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(' | ') : String(v)}`)
    .join(', ');
  return `${what} (${job.timezone})${job.editedOutside ? ' [edited outside temporal-flow]' : ''}`;
}

function jobLine(job: JobSummary): string {
  const next = job.paused ? 'paused' : (job.nextRunTimes[0]?.toISOString() ?? '-');
  const pipeline = job.foreign ? '-' : job.pipeline;
  return [job.id, pipeline, describeTrigger(job), next].join('\t');
}

function runLine(run: JobRun): string {
  const status = run.skipReason ? `skipped (${run.skipReason})` : run.status;
  return [
    run.startedAt.toISOString(),
    status,
    (run.scheduledAt ? `due ${run.scheduledAt.toISOString()}` : 'due -') +
      (run.standsFor ? ` (stood for ${run.standsFor.toISOString()})` : '') +
      (run.judgedAt ? ` (judged at ${run.judgedAt.toISOString()})` : ''),
    run.durationMs !== undefined ? `${run.durationMs} ms` : '-',
    run.workflowId,
    run.failure ?? '',
  ]
    .join('\t')
    .trimEnd();
}

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
 * `tflow jobs list|get|pause|resume|trigger|remove|history|stats`: manage scheduled jobs of any Temporal
 * server (`--address`, `--namespace`, default TEMPORAL_ADDRESS / TEMPORAL_NAMESPACE), `--json` for scripts.
 */
export function registerJobCommands(program: Command, env: TflowEnv): void {
  const jobs = withConnectionFlags(
    program
      .command('jobs')
      .description('manage scheduled jobs (Temporal Schedules created by temporal-flow)'),
    env,
  ).option('--json', 'print JSON');

  const run = async (
    cmd: Command,
    fn: (s: PipelineScheduler) => Promise<{ json: unknown; text: string[] }>,
  ): Promise<void> => {
    const flags = cmd.optsWithGlobals<ConnectionFlags & { json?: boolean }>();
    const codec = payloadCodecFromEnv(env);
    const out = await withConnection(env, flags, (connection, namespace) =>
      fn(
        new PipelineScheduler(
          new Client({
            connection,
            namespace,
            ...(codec ? { dataConverter: codecDataConverter(codec) } : {}),
          }),
          { taskQueue: env.taskQueue },
        ),
      ),
    );
    console.log(flags.json ? JSON.stringify(out.json, null, 2) : out.text.join('\n'));
  };
  const done = (json: Record<string, unknown>, text: string) => ({
    json: { ok: true, ...json },
    text: [text],
  });

  jobs
    .command('list')
    .description('list jobs: id, pipeline, trigger, next run')
    .option('--pipeline <name>', 'only jobs of this pipeline')
    .action(async (opts: { pipeline?: string }, cmd: Command) =>
      run(cmd, async (s) => {
        const list = await s.listJobs(opts.pipeline ? { pipeline: opts.pipeline } : {});
        return { json: list, text: list.length ? list.map(jobLine) : ['no jobs'] };
      }),
    );
  jobs
    .command('get <jobId>')
    .description(
      'show a job as created, with next runs, recent runs, counters and the DST dates of the coming year',
    )
    .action(async (jobId: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (s) => {
        const job = await s.getJob(jobId);
        const shown = job.foreign ? job : { ...job, dstWarnings: jobDstWarnings(job) };
        return { json: shown, text: [JSON.stringify(shown, null, 2)] };
      }),
    );
  for (const [verb, description] of [
    ['pause', 'pause a job (runs in flight continue)'],
    ['resume', 'resume a paused job'],
  ] as const) {
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
      );
  }
  jobs
    .command('trigger <jobId>')
    .description("run a job now, with the job's overlap policy")
    .action(async (jobId: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (s) => {
        await s.triggerJob(jobId);
        return done({ jobId }, `triggered ${jobId}`);
      }),
    );
  jobs
    .command('remove <jobId>')
    .description('delete a job (a run in flight continues)')
    .action(async (jobId: string, _opts: unknown, cmd: Command) =>
      run(cmd, async (s) => {
        await s.removeJob(jobId);
        return done({ jobId }, `removed ${jobId}`);
      }),
    );
  jobs
    .command('history <jobId>')
    .description('past runs of a job, newest first')
    .option('--limit <n>', 'most runs shown', (v) => Number(v), 20)
    .action(async (jobId: string, opts: { limit: number }, cmd: Command) =>
      run(cmd, async (s) => {
        const runs = await s.getHistory(jobId, { limit: opts.limit });
        return { json: runs, text: runs.length ? runs.map(runLine) : ['no runs'] };
      }),
    );
  jobs
    .command('stats')
    .description('jobs, paused, running, next run, missed, skipped, failing jobs')
    .action(async (_opts: unknown, cmd: Command) =>
      run(cmd, async (s) => {
        const stats = await s.getStats();
        return { json: stats, text: statsLines(stats) };
      }),
    );
}
