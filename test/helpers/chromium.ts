import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/*
 * The browser of the Temporal UI test (test/integration/temporal-ui.test.ts), found or installed the way the
 * Temporal CLI is (src/devserver/find-cli.ts): an explicit path, then PATH, then an install, and when none
 * works an error saying, on one line, what was tried. Never a silent skip: a machine that cannot have a
 * browser fails that test with the reason.
 */

/** Names looked for on PATH, in this order: Debian's, Ubuntu's and older distributions', Google's. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome'] as const;

/** Where Debian's `chromium` package puts the browser. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** A browser that answered `--version`. */
export interface FoundChromium {
  path: string;
  source: 'CHROMIUM' | 'PATH' | 'installed';
  version: string;
}

export interface FindChromiumOptions {
  /** `CHROMIUM` (read by src/config.ts), when set. */
  explicitPath?: string | undefined;
  /** The PATH to search. */
  searchPath: string;
}

export interface EnsureChromiumOptions extends FindChromiumOptions {
  /** Whether Debian's package may be installed (apt-get needs root). @default the process runs as root */
  isRoot?: boolean;
  /** The apt-get to run. @default 'apt-get' */
  aptGet?: string;
  /** Where the installed package puts the browser. @default {@link DEBIAN_CHROMIUM} */
  installedPath?: string;
  /** Told before an install starts (it takes minutes). @default console.warn */
  log?: (line: string) => void;
}

/** No browser could be found or installed; `attempts` says what was tried and why it failed. */
export class ChromiumNotFoundError extends Error {
  constructor(readonly attempts: readonly string[]) {
    super(
      `no Chromium for the browser test: ${attempts.join('; ')}. ` +
        "Set CHROMIUM to a Chromium or Chrome binary, or install Debian's chromium (apt-get install chromium) as root.",
    );
    this.name = 'ChromiumNotFoundError';
  }
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first line of what a failed command said, for a one-line reason. */
function firstLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { stderr?: string };
  if (e.code === 'ENOENT') return 'not found';
  const lines = (e.stderr || e.message).trim().split('\n');
  return (lines.find((l) => l.startsWith('E: ')) ?? lines[0] ?? '').trim();
}

async function versionOf(
  file: string,
  source: FoundChromium['source'],
  tried: string[],
): Promise<FoundChromium | undefined> {
  if (!(await isExecutable(file))) {
    tried.push(`${source}: ${file} does not exist or is not executable`);
    return undefined;
  }
  try {
    const { stdout } = await run(file, ['--version'], { timeout: 30_000 });
    return { path: file, source, version: stdout.trim() };
  } catch (err) {
    tried.push(`${source}: ${file} --version failed: ${firstLine(err)}`);
    return undefined;
  }
}

/**
 * Looks for the browser: `CHROMIUM`, then {@link CHROMIUM_NAMES} on PATH (each name in every folder before
 * the next name). Returns the first that answers `--version`, with the list of what was tried.
 */
export async function findChromium(
  opts: FindChromiumOptions,
): Promise<{ chromium?: FoundChromium; tried: string[] }> {
  const tried: string[] = [];
  if (opts.explicitPath) {
    const found = await versionOf(path.resolve(opts.explicitPath), 'CHROMIUM', tried);
    if (found) return { chromium: found, tried };
  } else {
    tried.push('CHROMIUM: not set');
  }
  const dirs = opts.searchPath.split(path.delimiter).filter(Boolean);
  let onPath = 0;
  for (const name of CHROMIUM_NAMES) {
    for (const dir of dirs) {
      const file = path.join(dir, name);
      if (!(await isExecutable(file))) continue;
      onPath += 1;
      const found = await versionOf(file, 'PATH', tried);
      if (found) return { chromium: found, tried };
    }
  }
  if (onPath === 0) tried.push(`PATH: no ${CHROMIUM_NAMES.join(', ')} in ${dirs.length} folders`);
  return { tried };
}

/** apt-get's words for a package list that is missing or stale: `apt-get update` is the cure. */
const NEEDS_UPDATE =
  /Unable to locate package|has no installation candidate|run apt-get update|Failed to fetch/i;

/** Longest one apt-get call may take; an install runs at most three (install, update, install). */
export const APT_TIMEOUT_MS = 480_000;

async function aptGet(aptGetPath: string, args: string[]): Promise<void> {
  await run(aptGetPath, ['-o', 'DPkg::Lock::Timeout=300', ...args], {
    timeout: APT_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/**
 * Installs Debian's `chromium` with `apt-get install -y chromium` (root only), running `apt-get update` first
 * only when the install fails for a missing or stale package list.
 */
export async function installChromium(
  opts: Omit<EnsureChromiumOptions, keyof FindChromiumOptions>,
): Promise<{ chromium?: FoundChromium; tried: string[] }> {
  const isRoot = opts.isRoot ?? process.getuid?.() === 0;
  if (!isRoot) return { tried: ["not root, so Debian's chromium was not installed"] };
  const apt = opts.aptGet ?? 'apt-get';
  const install = ['install', '-y', 'chromium'];
  (opts.log ?? console.warn)(
    `installing Debian's chromium for the browser test (${apt} ${install.join(' ')})`,
  );
  try {
    await aptGet(apt, install);
  } catch (err) {
    const why = firstLine(err);
    if (!NEEDS_UPDATE.test(why)) return { tried: [`${apt} ${install.join(' ')}: ${why}`] };
    try {
      await aptGet(apt, ['update']);
      await aptGet(apt, install);
    } catch (again) {
      return { tried: [`${apt} ${install.join(' ')}: ${why}; after ${apt} update: ${firstLine(again)}`] };
    }
  }
  const tried: string[] = [];
  const found = await versionOf(opts.installedPath ?? DEBIAN_CHROMIUM, 'installed', tried);
  return found ? { chromium: found, tried } : { tried };
}

/**
 * Finds the browser ({@link findChromium}) or installs it ({@link installChromium}).
 *
 * @throws ChromiumNotFoundError saying, on one line, everything that was tried.
 */
export async function ensureChromium(opts: EnsureChromiumOptions): Promise<FoundChromium> {
  const found = await findChromium(opts);
  if (found.chromium) return found.chromium;
  const installed = await installChromium(opts);
  if (installed.chromium) return installed.chromium;
  throw new ChromiumNotFoundError([...found.tried, ...installed.tried]);
}
