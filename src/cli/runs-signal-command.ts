import type { Command } from 'commander';
import type { TflowEnv } from '../config';
import { signalRun } from '../client/runs/run-signal';
import { withConnectionFlags } from './connection';
import { runAndPrint, withExamples } from './command-session';

/** A payload as typed on the command line: JSON when it parses as JSON (`'{"ok":true}'`, `42`), else the text itself. */
export function parseSignalPayload(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * `tflow runs signal <workflowId> <name> [payload]`: sends the signal a `waitFor` step waits for (e.g. a
 * human approval). Added to the `runs` group given (the lead's `tflow runs` commands share it).
 */
export function registerRunsSignalCommand(runs: Command, env: TflowEnv): void {
  withExamples(
    withConnectionFlags(
      runs
        .command('signal <workflowId> <name> [payload]')
        .description(
          "send a signal to a run waiting in a waitFor step; the payload (JSON, else text) becomes the step's output",
        ),
      env,
    ),
    `tflow runs signal publish-2027-01-04 approve '{"by":"ann"}'`,
  ).action(async (workflowId: string, name: string, payload: string | undefined, _opts, cmd: Command) =>
    runAndPrint(env, cmd, async (client) => {
      await signalRun(client, workflowId, name, parseSignalPayload(payload));
      return {
        json: { ok: true, signalled: workflowId, signal: name },
        text: () => [`sent signal "${name}" to ${workflowId}`],
      };
    }),
  );
}
