import { Client } from '@temporalio/client';
import { InvalidArgumentError as CommanderArgumentError, type Command } from 'commander';
import { payloadCodecFromEnv, type TflowEnv } from '../config';
import { InvalidArgumentError } from '../errors';
import { codecDataConverter } from '../codec/data-converter';
import { PipelineClient } from '../client/runs/pipeline-client';
import { PipelineScheduler } from '../client/jobs/pipeline-scheduler';
import { parseDuration } from '../parse/duration';
import { parseInstant } from '../parse/instant';
import { withConnection, type ConnectionFlags } from './connection';
import { processRenderContext, type RenderContext } from './render/render-context';

/** What a command prints: `json` with `--json`, else `text` rendered for where stdout goes. */
export interface CommandOutput {
  json: unknown;
  text: (ctx: RenderContext) => string[];
}

/** Flags every command that talks to a server takes (the group's `--json` included). */
export type SessionFlags = ConnectionFlags & { json?: boolean };

/**
 * Runs `fn` with a client of the server the command's flags name (payloads through the codec of
 * TFLOW_CODEC_KEYS, if set), and closes the connection after.
 */
export async function withClient<T>(
  env: TflowEnv,
  cmd: Command,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const flags = cmd.optsWithGlobals<SessionFlags>();
  const codec = payloadCodecFromEnv(env);
  return withConnection(env, flags, (connection, namespace) =>
    fn(
      new Client({
        connection,
        namespace,
        ...(codec ? { dataConverter: codecDataConverter(codec) } : {}),
      }),
    ),
  );
}

/** Prints a command's output: pretty JSON with `--json`, else its text for this terminal (or pipe). */
export function printOutput(cmd: Command, env: TflowEnv, out: CommandOutput): void {
  const { json } = cmd.optsWithGlobals<SessionFlags>();
  console.log(json ? JSON.stringify(out.json, null, 2) : out.text(processRenderContext(env)).join('\n'));
}

/** Runs a command against the server and prints what it returns. */
export async function runAndPrint(
  env: TflowEnv,
  cmd: Command,
  fn: (client: Client) => Promise<CommandOutput>,
): Promise<void> {
  printOutput(cmd, env, await withClient(env, cmd, fn));
}

/** Adds an "Example:" section to a command's `--help`. */
export function withExamples(cmd: Command, ...examples: string[]): Command {
  return cmd.addHelpText(
    'after',
    `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`,
  );
}

/** Option parser of a whole number >= 1 (`--limit`, `--times`). */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CommanderArgumentError('a whole number of 1 or more, e.g. 20');
  return n;
}

/**
 * The scheduler `tflow` uses: the task queue of TFLOW_TASK_QUEUE, and the alert queue of `watchdogTaskQueue`
 * (a command's `--watchdog-task-queue`), else of TFLOW_WATCHDOG_TASK_QUEUE, else the scheduler's default.
 */
export function cliScheduler(
  client: Client,
  env: TflowEnv,
  watchdogTaskQueue = env.watchdogTaskQueue,
): PipelineScheduler {
  return new PipelineScheduler(client, {
    taskQueue: env.taskQueue,
    ...(watchdogTaskQueue !== undefined ? { watchdogTaskQueue } : {}),
  });
}

/** The pipeline client `tflow` uses (redrives start on the task queue of TFLOW_TASK_QUEUE). */
export function cliPipelineClient(client: Client, env: TflowEnv): PipelineClient {
  return new PipelineClient(client, { taskQueue: env.taskQueue });
}

/**
 * `--since`: an instant (`2027-01-01T00:00:00Z`) or a duration back from `now` (`90m`, `1d`).
 *
 * @throws InvalidArgumentError naming `--since` when it is neither.
 */
export function sinceInstant(value: string, now: Date): Date {
  if (/^\d{4}-/.test(value)) return parseInstant(value, '--since');
  return new Date(now.getTime() - parseDuration(value, '--since'));
}

/**
 * Option parser of `--since` ({@link sinceInstant} from now): a bad value is a usage error, reported by
 * commander while it parses, before the command connects (so it exits "refused" even with no server).
 */
export function sinceOption(value: string): Date {
  try {
    return sinceInstant(value, new Date());
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw new CommanderArgumentError(err.message);
    throw err;
  }
}
