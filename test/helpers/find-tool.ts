import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/*
 * What the finders of the test suite's outside tools share (test/helpers/chromium.ts for the browser,
 * test/helpers/promtool.ts for Prometheus's promtool): an explicit path, then PATH, then Debian's package,
 * each attempt's failure kept as one line for the error that says what was tried.
 */

/** A tool that answered `--version`. */
export interface FoundTool<Source extends string> {
  path: string;
  source: Source;
  /** The first line of what `--version` printed. */
  version: string;
}

export async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first line of what a failed command said, for a one-line reason. */
export function firstLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { stderr?: string };
  if (e.code === 'ENOENT') return 'not found';
  const lines = (e.stderr || e.message).trim().split('\n');
  return (lines.find((l) => l.startsWith('E: ')) ?? lines[0] ?? '').trim();
}

/** `file --version`, or undefined with the reason pushed onto `tried`. */
export async function versionOf<Source extends string>(
  file: string,
  source: Source,
  tried: string[],
): Promise<FoundTool<Source> | undefined> {
  if (!(await isExecutable(file))) {
    tried.push(`${source}: ${file} does not exist or is not executable`);
    return undefined;
  }
  try {
    const { stdout } = await run(file, ['--version'], { timeout: 30_000 });
    return { path: file, source, version: stdout.trim().split('\n')[0]?.trim() ?? '' };
  } catch (err) {
    tried.push(`${source}: ${file} --version failed: ${firstLine(err)}`);
    return undefined;
  }
}

/**
 * The explicit path when set, then each of `names` on `searchPath` (each name in every folder before the
 * next name): the first that answers `--version`, with the list of what was tried.
 */
export async function findTool<Explicit extends string>(opts: {
  explicitPath: string | undefined;
  /** The variable the explicit path comes from, e.g. `CHROMIUM`. */
  explicitName: Explicit;
  names: readonly string[];
  searchPath: string;
}): Promise<{ found?: FoundTool<Explicit | 'PATH'>; tried: string[] }> {
  const tried: string[] = [];
  if (opts.explicitPath) {
    const found = await versionOf(path.resolve(opts.explicitPath), opts.explicitName, tried);
    if (found) return { found, tried };
  } else {
    tried.push(`${opts.explicitName}: not set`);
  }
  const dirs = opts.searchPath.split(path.delimiter).filter(Boolean);
  let onPath = 0;
  for (const name of opts.names) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      if (!(await isExecutable(file))) continue;
      onPath += 1;
      const found = await versionOf(file, 'PATH', tried);
      if (found) return { found, tried };
    }
  }
  if (onPath === 0) tried.push(`PATH: no ${opts.names.join(', ')} in ${dirs.length} folders`);
  return { tried };
}

/** apt-get's words for a package list that is missing or stale: `apt-get update` is the cure. */
const NEEDS_UPDATE =
  /Unable to locate package|has no installation candidate|run apt-get update|Failed to fetch/i;

/** Longest one apt-get call may take; an install runs at most three (install, update, install). */
export const APT_TIMEOUT_MS = 480_000;

async function aptGet(aptGetPath: string, args: string[], cwd: string | undefined): Promise<void> {
  await run(aptGetPath, ['-o', 'DPkg::Lock::Timeout=300', ...args], {
    timeout: APT_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    cwd,
  });
}

/**
 * `apt-get <args>` (in `cwd`), with `apt-get update` and a second try only when the first fails for a
 * missing or stale package list. Undefined when it worked, else the one-line reason.
 */
export async function aptGetUpdatingOnce(
  aptGetPath: string,
  args: string[],
  cwd?: string,
): Promise<string | undefined> {
  const command = `${aptGetPath} ${args.join(' ')}`;
  try {
    await aptGet(aptGetPath, args, cwd);
    return undefined;
  } catch (err) {
    const why = firstLine(err);
    if (!NEEDS_UPDATE.test(why)) return `${command}: ${why}`;
    try {
      await aptGet(aptGetPath, ['update'], cwd);
      await aptGet(aptGetPath, args, cwd);
      return undefined;
    } catch (again) {
      return `${command}: ${why}; after ${aptGetPath} update: ${firstLine(again)}`;
    }
  }
}
