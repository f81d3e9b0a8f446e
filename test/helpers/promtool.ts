import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { aptGetUpdatingOnce, findTool, firstLine, type FoundTool, versionOf } from './find-tool';

const run = promisify(execFile);

/*
 * Prometheus's promtool, for the test of deploy/prometheus-rules.yml (test/unit/prometheus-rules.test.ts),
 * found or installed the way the test suite's browser is (test/helpers/chromium.ts): `PROMTOOL`, then PATH,
 * then Debian's `prometheus` package, and when none works an error saying, on one line, what was tried.
 *
 * The package is downloaded (`apt-get download prometheus`) and unpacked with `dpkg-deb -x` into
 * `.tflow/prometheus/`, not installed: its postinst adds a system user and starts the Prometheus server as a
 * service, and it depends on a dozen JavaScript packages of the server's web UI; promtool needs none of it.
 */

/** Where the unpacked package is kept, as the Temporal CLI is kept under `.tflow/`. */
export const PROMETHEUS_DIR = path.resolve(__dirname, '../../.tflow/prometheus');

/** Where promtool is inside the unpacked package. */
export const promtoolIn = (dir: string): string => path.join(dir, 'usr', 'bin', 'promtool');

/** A promtool that answered `--version`. */
export type FoundPromtool = FoundTool<'PROMTOOL' | 'PATH' | 'installed'>;

export interface EnsurePromtoolOptions {
  /** `PROMTOOL` (read by src/config.ts), when set. */
  explicitPath?: string | undefined;
  /** The PATH to search. */
  searchPath: string;
  /** Where the package is (or is to be) unpacked. @default {@link PROMETHEUS_DIR} */
  installDir?: string;
  /** Whether Debian's package may be fetched (apt-get update needs root). @default the process runs as root */
  isRoot?: boolean;
  /** The apt-get to run. @default 'apt-get' */
  aptGet?: string;
  /** The dpkg-deb to run. @default 'dpkg-deb' */
  dpkgDeb?: string;
  /** Told before a download starts. @default console.warn */
  log?: (line: string) => void;
}

/** No promtool could be found or installed; `attempts` says what was tried and why it failed. */
export class PromtoolNotFoundError extends Error {
  constructor(readonly attempts: readonly string[]) {
    super(
      `no promtool for the alert rules test: ${attempts.join('; ')}. ` +
        "Set PROMTOOL to a promtool binary, or run as root to unpack Debian's prometheus package into .tflow/.",
    );
    this.name = 'PromtoolNotFoundError';
  }
}

/**
 * Downloads Debian's `prometheus` and unpacks it into `installDir` (root only), running `apt-get update`
 * only when the download fails for a missing or stale package list.
 */
export async function installPromtool(
  opts: Omit<EnsurePromtoolOptions, 'explicitPath' | 'searchPath'>,
): Promise<{ promtool?: FoundPromtool; tried: string[] }> {
  const installDir = opts.installDir ?? PROMETHEUS_DIR;
  const isRoot = opts.isRoot ?? process.getuid?.() === 0;
  if (!isRoot) return { tried: ["not root, so Debian's prometheus was not downloaded"] };
  const apt = opts.aptGet ?? 'apt-get';
  const dpkgDeb = opts.dpkgDeb ?? 'dpkg-deb';
  const download = ['download', 'prometheus'];
  (opts.log ?? console.warn)(
    `unpacking Debian's prometheus into ${installDir} for the alert rules test (${apt} ${download.join(' ')})`,
  );
  const work = await mkdtemp(path.join(os.tmpdir(), 'tflow-prometheus-'));
  try {
    const failed = await aptGetUpdatingOnce(apt, download, work);
    if (failed) return { tried: [failed] };
    const deb = (await readdir(work)).find((f) => f.endsWith('.deb'));
    if (!deb) return { tried: [`${apt} ${download.join(' ')}: no .deb in ${work}`] };
    await mkdir(installDir, { recursive: true });
    try {
      await run(dpkgDeb, ['-x', path.join(work, deb), installDir], { timeout: 120_000 });
    } catch (err) {
      return { tried: [`${dpkgDeb} -x ${deb}: ${firstLine(err)}`] };
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const tried: string[] = [];
  const found = await versionOf(promtoolIn(installDir), 'installed', tried);
  return found ? { promtool: found, tried } : { tried };
}

/**
 * Finds promtool: `PROMTOOL`, then `promtool` on PATH, then one unpacked before into `installDir`; else
 * unpacks Debian's package ({@link installPromtool}).
 *
 * @throws PromtoolNotFoundError saying, on one line, everything that was tried.
 */
export async function ensurePromtool(opts: EnsurePromtoolOptions): Promise<FoundPromtool> {
  const { found, tried } = await findTool({
    explicitPath: opts.explicitPath,
    explicitName: 'PROMTOOL',
    names: ['promtool'],
    searchPath: opts.searchPath,
  });
  if (found) return found;
  const installDir = opts.installDir ?? PROMETHEUS_DIR;
  const unpacked = await versionOf(promtoolIn(installDir), 'installed', []);
  if (unpacked) return unpacked;
  const installed = await installPromtool(opts);
  if (installed.promtool) return installed.promtool;
  throw new PromtoolNotFoundError([...tried, ...installed.tried]);
}
