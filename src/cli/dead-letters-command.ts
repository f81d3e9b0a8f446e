import type { Command } from 'commander';
import type { TflowEnv } from '../config';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { PipelineClient } from '../client/pipeline-client';
import { RunNotFoundError } from '../client/errors';
import { withConnectionFlags } from './connection';
import {
  cliPipelineClient,
  positiveInteger,
  runAndPrint,
  sinceInstant,
  withExamples,
} from './command-session';
import { renderRunList } from './render/run-render';

async function failedRunTaskQueue(client: Client, workflowId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).taskQueue;
  } catch (err) {
    throw err instanceof WorkflowNotFoundError ? new RunNotFoundError(workflowId, { cause: err }) : err;
  }
}

/**
 * `tflow dead-letters` (pipeline runs that failed for good, newest first) and `tflow dead-letters redrive
 * <workflowId> [--from <step>]` (PipelineClient.redrive: a new run from the failed step, with its
 * recorded input).
 */
export function registerDeadLetterCommands(program: Command, env: TflowEnv): Command {
  const deadLetters = withExamples(
    withConnectionFlags(
      program
        .command('dead-letters')
        .description('pipeline runs that failed for good, newest first, with their error'),
      env,
    )
      .option('--json', 'print JSON')
      .option('--pipeline <name>', 'only runs of this pipeline')
      .option(
        '--since <when>',
        'only runs started since: a duration back from now (90m, 1d) or an ISO instant',
      )
      .option('--limit <n>', 'most runs shown', positiveInteger, 20)
      .action(async (opts: { pipeline?: string; since?: string; limit: number }, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          // A dead letter is a failed pipeline run: the same record and query as `tflow runs --status failed`.
          const list = await cliPipelineClient(client, env).listRuns({
            status: 'failed',
            ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
            ...(opts.since !== undefined ? { since: sinceInstant(opts.since, new Date()) } : {}),
            limit: opts.limit,
          });
          return {
            json: list,
            text: (ctx) => renderRunList(list, ctx, { empty: 'no dead letters', withJob: true }),
          };
        }),
      ),
    'tflow dead-letters --pipeline etl --since 7d',
  );
  withExamples(
    deadLetters
      .command('redrive <workflowId>')
      .description(
        'start a new run of a failed run from its failed step (or --from an earlier top-level step), with the input recorded for it',
      )
      .option('--from <step>', 'top-level step to start from (default: the failed one)')
      .option('--task-queue <name>', "task queue of the new run (default: the failed run's)")
      .action(async (workflowId: string, opts: { from?: string; taskQueue?: string }, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          // The new run goes where the failed one ran: its workers know the pipeline's steps.
          const taskQueue = opts.taskQueue ?? (await failedRunTaskQueue(client, workflowId));
          const handle = await new PipelineClient(client, { taskQueue }).redrive(
            workflowId,
            opts.from !== undefined ? { fromStep: opts.from } : {},
          );
          return {
            json: { ok: true, redrove: workflowId, workflowId: handle.workflowId },
            text: () => [
              `redrove ${workflowId}${opts.from ? ` from step ${opts.from}` : ''}: new run ${handle.workflowId}`,
              `follow it with: tflow runs show ${handle.workflowId}`,
            ],
          };
        }),
      ),
    'tflow dead-letters redrive etl-7f3c --from load',
  );
  return deadLetters;
}
