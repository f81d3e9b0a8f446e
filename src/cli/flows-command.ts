import type { Command } from 'commander';
import type { TflowEnv } from '../config';
import { listFlowControls } from '../client/runs/flow-list';
import { withConnectionFlags } from './connection';
import { positiveInteger, runAndPrint, withExamples } from './command-session';
import { renderFlowControls } from './render/flow-render';

/**
 * `tflow flows`: the running flow controls (pipelines with `debounce`, `batch`, `throttle` or `dedupe`) and
 * what waits in each: events not yet in a run, when the next run is due, runs started.
 */
export function registerFlowsCommand(program: Command, env: TflowEnv): Command {
  return withExamples(
    withConnectionFlags(
      program
        .command('flows')
        .description(
          'pending debounced, batched, throttled and deduplicated work: each flow control, its events waiting and its next run',
        ),
      env,
    )
      .option('--json', 'print JSON')
      .option('--pipeline <name>', 'only the flow controls of this pipeline')
      .option('--limit <n>', 'most flow controls read', positiveInteger, 1000)
      .action(async (opts: { pipeline?: string; limit: number }, cmd: Command) =>
        runAndPrint(env, cmd, async (client) => {
          const listing = await listFlowControls(client, {
            ...(opts.pipeline !== undefined ? { pipeline: opts.pipeline } : {}),
            limit: opts.limit,
          });
          return { json: listing, text: (ctx) => renderFlowControls(listing, ctx) };
        }),
      ),
    'tflow flows --pipeline ingest',
  );
}
