#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { readEnv } from '../config';
import { TemporalFlowError } from '../errors';
import { missingCodecError } from '../codec/errors';
import { registerCodecCommand } from './codec-command';
import { registerDeadLetterCommands } from './dead-letters-command';
import { registerFlowsCommand } from './flows-command';
import { registerJobCommands } from './job-commands';
import { registerPreviewCommand } from './preview-command';
import { PLAN_COMMANDS, PLAN_EXIT_CODES, registerPlanCommands } from './plan-command';
import { registerRunsCommands } from './runs-command';
import { registerRunsSignalCommand } from './runs-signal-command';
import { withExamples } from './command-session';
import { registerServerCommands } from './server-commands';
import { registerSetupCommands } from './setup-commands';
import { CredentialsRejectedError, ServerUnreachableError } from '../client/errors';

/** Exit codes of `tflow`, as `--help` states them. */
export const EXIT_CODES = {
  ok: 0,
  /** The server could not be used at all (unreachable, credentials rejected), or an unexpected error. */
  serverUnusable: 1,
  /** The command was refused: bad input or usage, a job or run not found, missing setup. */
  refused: 2,
} as const;

const HELP_FOOTER = `
Find a failed run, see why, redrive it:
  $ tflow dead-letters
  $ tflow runs show <workflow id>
  $ tflow dead-letters redrive <workflow id> [--from <step>]

Output: tables and cards on a terminal; tab-separated lines (or JSON, for \`jobs get\`) when piped;
--json on every server command. Colors follow NO_COLOR / FORCE_COLOR.
Exit codes: 0 done, 1 server unreachable, credentials rejected or an unexpected error,
2 command refused (bad input or usage, job or run not found, missing setup).
\`plan\` and \`apply\` (jobs as code) follow terraform plan -detailed-exitcode: 0 no changes, 2 changes, 1 error.
`;

/** Examples of the commands whose files do not give their own (`--help` shows them). */
const EXAMPLES: Readonly<Record<string, string[]>> = {
  'install-server': ['tflow install-server'],
  dev: ['tflow dev --port 7233 --ui-port 8233', 'tflow dev --memory --headless'],
  setup: ['TEMPORAL_ADDRESS=temporal.internal:7233 tflow setup --retention 30d'],
  doctor: ['tflow doctor --task-queue pipelines'],
  jobs: ['tflow jobs list', 'tflow jobs get etl-nightly'],
  preview: ['tflow preview "30 2 * * *" --tz Europe/Paris -n 5', 'tflow preview --every 2h --offset 1h'],
  'codec-server': [
    'tflow codec-server --port 8888 --cors-origin http://localhost:8233',
    'TFLOW_CODEC_TOKEN=$TOKEN tflow codec-server --host 0.0.0.0 --allowed-host codec.example.com',
  ],
};

/** The `tflow` command. Each group of subcommands lives in its own file. */
export function buildProgram(): Command {
  const program = new Command('tflow')
    .description('temporal-flow: durable pipelines and schedules on Temporal')
    .showHelpAfterError()
    // Usage errors (unknown option, bad value) exit with "refused", as our own errors do; commander has
    // already printed the message. Subcommands inherit this.
    .exitOverride()
    .addHelpText('after', HELP_FOOTER);
  const env = readEnv();
  registerServerCommands(program, env);
  registerSetupCommands(program, env);
  registerJobCommands(program, env);
  registerRunsSignalCommand(registerRunsCommands(program, env), env);
  registerDeadLetterCommands(program, env);
  registerFlowsCommand(program, env);
  registerPlanCommands(program, env);
  registerPreviewCommand(program);
  registerCodecCommand(program, env);
  for (const cmd of program.commands) {
    const examples = EXAMPLES[cmd.name()];
    if (examples) withExamples(cmd, ...examples);
  }
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (caught) {
    if (caught instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      // plan/apply keep Terraform's codes, where 2 means "changes": a usage error there is 1.
      const refused = PLAN_COMMANDS.includes(argv[2] ?? '') ? PLAN_EXIT_CODES.error : EXIT_CODES.refused;
      process.exitCode = caught.exitCode === 0 ? EXIT_CODES.ok : refused;
      return;
    }
    const err = missingCodecError(caught) ?? caught;
    if (err instanceof TemporalFlowError) {
      console.error(`tflow: ${err.message}`);
      process.exitCode =
        err instanceof ServerUnreachableError || err instanceof CredentialsRejectedError
          ? EXIT_CODES.serverUnusable
          : EXIT_CODES.refused;
      return;
    }
    // Not one of ours (a bug, or an error the client does not translate yet): one line, no stack trace.
    console.error(`tflow: unexpected error: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = EXIT_CODES.serverUnusable;
  }
}

if (require.main === module) void main(process.argv);
