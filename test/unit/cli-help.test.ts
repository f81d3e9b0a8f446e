import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main';

/** Every command of `tflow`, subcommands included, with its full name. */
function commands(cmd: Command, prefix = ''): [string, Command][] {
  return cmd.commands.flatMap((c) => {
    const name = `${prefix}${c.name()}`;
    return [[name, c] as [string, Command], ...commands(c, `${name} `)];
  });
}

function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => (out += s) });
  cmd.outputHelp();
  return out;
}

describe('tflow --help', () => {
  const all = commands(buildProgram());

  it('knows the new commands', () => {
    expect(all.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'runs',
        'runs show',
        'dead-letters',
        'dead-letters redrive',
        'jobs watch',
        'jobs dry-run',
      ]),
    );
  });

  it.each(all)('%s has an example that runs that command', (name, cmd) => {
    const help = helpOf(cmd);
    expect(help).toMatch(/\nExamples?:\n {2}\$ /);
    const examples = help
      .split(/\nExamples?:\n/)[1]!
      .trim()
      .split('\n');
    for (const example of examples)
      expect(example.trim()).toMatch(new RegExp(`^\\$ (\\S+=\\S+ )?tflow ${name}( |$)`));
  });

  it('states the exit codes and the way to a failed run', () => {
    const help = helpOf(buildProgram());
    expect(help).toContain('Exit codes: 0 done, 1 server unreachable');
    expect(help).toContain('$ tflow dead-letters redrive <workflow id> [--from <step>]');
  });
});
