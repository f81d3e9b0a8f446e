#!/usr/bin/env node
import { Command } from 'commander';
import { readEnv } from '../config';
import { TemporalFlowError } from '../errors';
import { missingCodecError } from '../codec/errors';
import { registerCodecCommand } from './codec-command';
import { registerJobCommands } from './job-commands';
import { registerPreviewCommand } from './preview-command';
import { registerRunsSignalCommand } from './runs-signal-command';
import { registerServerCommands } from './server-commands';
import { registerSetupCommands } from './setup-commands';
import { CredentialsRejectedError, ServerUnreachableError } from '../client/errors';

/** The `tflow` command. Each group of subcommands lives in its own file. */
export function buildProgram(): Command {
  const program = new Command('tflow')
    .description('temporal-flow: durable pipelines and schedules on Temporal')
    .showHelpAfterError();
  const env = readEnv();
  registerServerCommands(program, env);
  registerSetupCommands(program, env);
  registerJobCommands(program, env);
  registerPreviewCommand(program);
  registerCodecCommand(program, env);
  registerRunsSignalCommand(program.command('runs').description('act on pipeline runs'), env);
  return program;
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (caught) {
    const err = missingCodecError(caught) ?? caught;
    if (err instanceof TemporalFlowError) {
      console.error(`tflow: ${err.message}`);
      // 1: the server could not be used at all; 2: the command was refused (bad input, missing setup...).
      process.exitCode =
        err instanceof ServerUnreachableError || err instanceof CredentialsRejectedError ? 1 : 2;
      return;
    }
    throw err;
  }
}

if (require.main === module) void main(process.argv);
