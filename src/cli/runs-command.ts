import { Option, type Command } from 'commander';
import type { TflowEnv } from '../config';
import { RUN_STATUSES } from '../client/run-list';
import type { JobRunStatus } from '../client/run-types';
import { withConnectionFlags } from './connection';
import {
  cliPipelineClient,
  positiveInteger,
  runAndPrint,
  sinceInstant,
  withExamples,
} from './command-session';
import { renderRunCard, renderRunList } from './render/run-render';

interface RunsOptions {
  job?: string;
  pipeline?: string;
  status?: JobRunStatus;
  since?: string;
  limit: number;
}

/**
 * `tflow runs` (list, with filters) and `tflow runs show <workflowId>`. Returns the `runs` command so
 * that other subcommands can be added to it in their own files, e.g.
 * `registerRunsCommands(program, env).command('signal <workflowId> <name> [payload]')`; they get
 * `--address`, `--namespace` and `--json` from it (read them with `cmd.optsWithGlobals()`, or run
 * through `runAndPrint` from command-session.ts).
 */
export function registerRunsCommands(program: Command, env: TflowEnv): Command {
  const runs = withExamples(
    withConnectionFlags(
      program
        .command('runs')
        .description('pipeline runs, newest first: filter by job, pipeline, status, start time'),
      env,
    )
      .option('--json', 'print JSON')
      .option('--job <jobId>', 'only runs started by this job')
      .option('--pipeline <name>', 'only runs of this pipeline')
      .addOption(new Option('--status <status>', 'only runs with this status').choices(RUN_STATUSES))
      .option(
        '--since <when>',
        'only runs started since: a duration back from now (90m, 1d) or an ISO instant',
      )
      .option('--limit <n>', 'most runs shown', positiveInteger, 20)
      .action(async (opts: RunsOptions, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          const list = await cliPipelineClient(client, env).listRuns({
            ...(opts.job !== undefined ? { jobId: opts.job } : {}),
            ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
            ...(opts.status !== undefined ? { status: opts.status } : {}),
            ...(opts.since !== undefined ? { since: sinceInstant(opts.since, new Date()) } : {}),
            limit: opts.limit,
          });
          return { json: list, text: (ctx) => renderRunList(list, ctx, { empty: 'no runs', withJob: true }) };
        }),
      ),
    'tflow runs --status failed --since 1d',
    'tflow runs --job etl-nightly --limit 5',
  );
  withExamples(
    runs
      .command('show <workflowId>')
      .description(
        'one run: steps with durations, attempts and errors, compensations, hooks, how to redrive it',
      )
      .option('--run-id <runId>', 'a given run of this workflow id (default: its latest)')
      .action(async (workflowId: string, opts: { runId?: string }, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          const run = await cliPipelineClient(client, env).describeRun(workflowId, opts.runId);
          return { json: run, text: (ctx) => renderRunCard(run, ctx) };
        }),
      ),
    'tflow runs show etl-nightly-2027-01-01T02:00:00Z',
  );
  return runs;
}
