import { chromium, type Browser } from 'playwright-core';
import { readEnv } from '../../src/config';
import { aptGetUpdatingOnce, findTool, type FoundTool, versionOf } from './find-tool';

export { APT_TIMEOUT_MS } from './find-tool';

/*
 * The browser of the Temporal UI and Jaeger tests (test/integration/temporal-ui.test.ts,
 * test/tracing/tracing-jaeger.test.ts), found or installed the way the
 * Temporal CLI is (src/devserver/find-cli.ts): an explicit path, then PATH, then an install, and when none
 * works an error saying, on one line, what was tried. Never a silent skip: a machine that cannot have a
 * browser fails that test with the reason.
 */

/** Names looked for on PATH, in this order: Debian's, Ubuntu's and older distributions', Google's. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome'] as const;

/** Where Debian's `chromium` package puts the browser. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** A browser that answered `--version`. */
export type FoundChromium = FoundTool<'CHROMIUM' | 'PATH' | 'installed'>;

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

/**
 * Looks for the browser: `CHROMIUM`, then {@link CHROMIUM_NAMES} on PATH (each name in every folder before
 * the next name). Returns the first that answers `--version`, with the list of what was tried.
 */
export async function findChromium(
  opts: FindChromiumOptions,
): Promise<{ chromium?: FoundChromium; tried: string[] }> {
  const { found, tried } = await findTool({
    explicitPath: opts.explicitPath,
    explicitName: 'CHROMIUM',
    names: CHROMIUM_NAMES,
    searchPath: opts.searchPath,
  });
  return found ? { chromium: found, tried } : { tried };
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
  const failed = await aptGetUpdatingOnce(apt, install);
  if (failed) return { tried: [failed] };
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

/** The flags the browser tests launch Chromium with: no sandbox (root in a container), no GPU, no traffic of its own. */
const HEADLESS_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches headless Chromium for a browser test: the browser {@link ensureChromium} finds or installs as
 * `CHROMIUM` and PATH (src/config.ts) say, with {@link HEADLESS_ARGS}. Installing can take minutes: give the
 * caller's hook or test a deadline of `3 * APT_TIMEOUT_MS + 60_000`.
 */
export async function launchChromium(): Promise<Browser> {
  const env = readEnv();
  const found = await ensureChromium({ explicitPath: env.chromium, searchPath: env.path });
  return chromium.launch({ executablePath: found.path, args: HEADLESS_ARGS });
}
