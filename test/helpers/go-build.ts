import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../cluster/harness/commands';

/*
 * Builds Go programs the tests run for real (the Temporal server of the cluster harness, Jaeger of the
 * tracing test) from the Go module proxy, into a cache folder under .tflow/: a throw-away module requires
 * the pinned version, `go build` compiles each package to a temporary name and renames it when complete.
 */

export interface GoBuildOptions {
  /** Module path, e.g. `go.temporal.io/server`. */
  module: string;
  /** Version without the `v`, e.g. `1.32.2`. */
  version: string;
  /** Go toolchain to build with (`GOTOOLCHAIN`, fetched by `go` itself), e.g. `go1.27.3`. */
  toolchain: string;
  /** Packages of the module and the binary each is built to. */
  binaries: ReadonlyArray<readonly [pkg: string, out: string]>;
  /** Folder of the throw-away module (its go.mod and go.sum record what was resolved). */
  workDir: string;
  /** What needs it, for the error when Go is missing (e.g. `the cluster harness`). */
  purpose: string;
  /** Name of the throw-away module. */
  moduleName: string;
  /** Deadline of each `go` command, in ms. @default none */
  timeoutMs?: number;
}

/** `-mod=mod` only inside our throw-away module: it lets `go build` record the sums it still needs. */
export function goEnv(toolchain: string, inModule = false): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: toolchain, ...(inModule ? { GOFLAGS: '-mod=mod' } : {}) };
}

/** Fails with a message naming `purpose` when Go is not on PATH. */
export async function checkGo(toolchain: string, purpose: string): Promise<void> {
  try {
    await run('go', ['version'], { env: goEnv(toolchain) });
  } catch (err) {
    throw new Error(`${purpose} needs Go (https://go.dev/dl/) on PATH`, { cause: err });
  }
}

/**
 * Builds every binary of `opts.binaries` that is missing (all present: nothing runs but `go version`).
 * Returns true when it compiled something.
 */
export async function ensureGoBinaries(opts: GoBuildOptions): Promise<boolean> {
  await checkGo(opts.toolchain, opts.purpose);
  const missing = opts.binaries.filter(([, out]) => !existsSync(out));
  if (missing.length === 0) return false;
  await mkdir(opts.workDir, { recursive: true });
  if (!existsSync(path.join(opts.workDir, 'go.mod')))
    await writeFile(path.join(opts.workDir, 'go.mod'), `module ${opts.moduleName}\n\ngo 1.26\n`);
  const env = goEnv(opts.toolchain, true);
  const cmd = { cwd: opts.workDir, env, ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}) };
  await run('go', ['get', `${opts.module}@v${opts.version}`], cmd);
  for (const [pkg, out] of missing) {
    await mkdir(path.dirname(out), { recursive: true });
    // Build to a temporary name: an interrupted build never leaves a binary that looks complete.
    await run('go', ['build', '-o', `${out}.partial`, pkg], cmd);
    await rename(`${out}.partial`, out);
  }
  return true;
}
