import type { Command } from 'commander';
import type { TflowEnv } from '../config';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { PipelineClient } from '../client/runs/pipeline-client';
import { RunNotFoundError } from '../client/errors';
import { readDeadLetter } from '../client/dead-letters/dead-letters';
import { withConnectionFlags } from './connection';
import {
  cliPipelineClient,
  positiveInteger,
  runAndPrint,
  sinceOption,
  withExamples,
} from './command-session';
import { renderDeadLetters } from './render/dead-letter-render';

async function failedRunTaskQueue(client: Client, workflowId: string): Promise<string> {
  try {
    return (await client.workflow.getHandle(workflowId).describe()).taskQueue;
  } catch (err) {
    throw err instanceof WorkflowNotFoundError ? new RunNotFoundError(workflowId, { cause: err }) : err;
  }
}

/**
 * `tflow dead-letters` (the dead-letter queue: runs that failed for good and were neither redriven
 * successfully nor discarded, kept past the namespace's retention), `tflow dead-letters redrive <workflowId>
 * [--from <step>]` (PipelineClient.redrive: a new run from the failed step, with its recorded input) and
 * `tflow dead-letters discard <workflowId>`.
 */
export function registerDeadLetterCommands(program: Command, env: TflowEnv): Command {
  const deadLetters = withExamples(
    withConnectionFlags(
      program
        .command('dead-letters')
        .description(
          'the dead-letter queue: runs that failed for good, newest failure first, with their error',
        ),
      env,
    )
      .option('--json', 'print JSON')
      .option('--pipeline <name>', 'only letters of this pipeline')
      .option(
        '--since <when>',
        'only letters that failed since: a duration back from now (90m, 1d) or an ISO instant',
        sinceOption,
      )
      .option('--limit <n>', 'most letters shown', positiveInteger, 20)
      .action(async (opts: { pipeline?: string; since?: Date; limit: number }, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          const since = opts.since;
          // The queue itself (the letters' keepers), not failed runs in visibility: a letter outlives the
          // retention of its run, and leaves the queue once redriven successfully or discarded.
          const all = await cliPipelineClient(client, env).listDeadLetters({
            ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
            // --since filters here: ask for more than shown when it is given.
            limit: since ? Math.max(opts.limit, 1000) : opts.limit,
          });
          const list = (since ? all.filter((l) => (l.closeTime ?? l.startTime) >= since) : all).slice(
            0,
            opts.limit,
          );
          return { json: list, text: (ctx) => renderDeadLetters(list, ctx) };
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
          // The new run goes where the failed one ran: its workers know the pipeline's steps. The letter
          // knows that queue even when the failed run's history is gone.
          const taskQueue =
            opts.taskQueue ??
            (await readDeadLetter(client, workflowId))?.taskQueue ??
            (await failedRunTaskQueue(client, workflowId));
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
  withExamples(
    deadLetters
      .command('discard <workflowId>')
      .description(
        'remove a letter from the queue without running it (the failed run, if still kept, is untouched)',
      )
      .option('--reason <text>', 'why, kept with the letter')
      .action(async (workflowId: string, opts: { reason?: string }, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          const entry = await cliPipelineClient(client, env).discard(
            workflowId,
            opts.reason !== undefined ? { reason: opts.reason } : {},
          );
          return {
            json: { ok: true, discarded: entry.letterId },
            text: () => [`discarded the dead letter of ${entry.letterId} (${entry.details.pipeline})`],
          };
        }),
      ),
    "tflow dead-letters discard etl-7f3c --reason 'order cancelled by hand'",
  );
  return deadLetters;
}
