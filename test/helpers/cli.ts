import { inject, vi } from 'vitest';
import { buildProgram } from '../../src/cli/main';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * Runs `tflow <args>` in process against the suite's server and returns what it printed (colors
 * removed). With `tty`, stdout claims to be a terminal for the run (a fake TTY: tables and cards).
 */
export async function tflow(args: string[], opts: { tty?: boolean } = {}): Promise<string> {
  const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const wasTTY = process.stdout.isTTY;
  if (opts.tty !== undefined) process.stdout.isTTY = opts.tty;
  try {
    const [group, ...rest] = args;
    const conn = ['--address', inject('temporalAddress'), '--namespace', inject('temporalNamespace')];
    await buildProgram().parseAsync(['node', 'tflow', group!, ...conn, ...rest]);
    return log.mock.calls
      .map((c) => String(c[0]))
      .join('\n')
      .replace(ANSI, '');
  } finally {
    process.stdout.isTTY = wasTTY;
    log.mockRestore();
  }
}
