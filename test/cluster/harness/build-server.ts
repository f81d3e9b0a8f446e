import { existsSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run } from './commands';
import { GO_TOOLCHAIN, TEMPORAL_SERVER_VERSION } from './cluster-versions';

const MODULE = 'go.temporal.io/server';

/** The Temporal binaries and the module folder whose schema/ and config/ they come with. */
export interface ServerBinaries {
  server: string;
  sqlTool: string;
  /** `go.temporal.io/server@<version>` in the Go module cache: schema/postgresql/v12/..., config/... */
  moduleDir: string;
  /** True when this call compiled them; false when they were cached. */
  built: boolean;
}

/** `-mod=mod` only inside our throw-away module: it lets `go build` record the sums it still needs. */
function goEnv(inModule = false): NodeJS.ProcessEnv {
  return { ...process.env, GOTOOLCHAIN: GO_TOOLCHAIN, ...(inModule ? { GOFLAGS: '-mod=mod' } : {}) };
}

/**
 * Builds `temporal-server` and `temporal-sql-tool` of {@link TEMPORAL_SERVER_VERSION} with Go (toolchain
 * and modules from the Go module proxy) into `<cacheDir>/bin/v<version>/`, or reuses them when present.
 */
export async function ensureServerBinaries(cacheDir: string): Promise<ServerBinaries> {
  const binDir = path.join(cacheDir, 'bin', `v${TEMPORAL_SERVER_VERSION}`);
  const server = path.join(binDir, 'temporal-server');
  const sqlTool = path.join(binDir, 'temporal-sql-tool');
  try {
    await run('go', ['version'], { env: goEnv() });
  } catch (err) {
    throw new Error(
      `the cluster harness needs Go (https://go.dev/dl/) on PATH to build Temporal ${TEMPORAL_SERVER_VERSION}`,
      { cause: err },
    );
  }
  const moduleDir = await downloadModule();
  if (existsSync(server) && existsSync(sqlTool)) return { server, sqlTool, moduleDir, built: false };

  // A throw-away module that requires the server at the pinned version, so `go build` resolves it.
  const work = path.join(cacheDir, 'gomod');
  await mkdir(work, { recursive: true });
  await mkdir(binDir, { recursive: true });
  if (!existsSync(path.join(work, 'go.mod')))
    await writeFile(path.join(work, 'go.mod'), 'module tflowcluster\n\ngo 1.26\n');
  const env = goEnv(true);
  await run('go', ['get', `${MODULE}@v${TEMPORAL_SERVER_VERSION}`], { cwd: work, env });
  for (const [pkg, out] of [
    [`${MODULE}/cmd/server`, server],
    [`${MODULE}/cmd/tools/sql`, sqlTool],
  ] as const) {
    // Build to a temporary name: an interrupted build never leaves a binary that looks complete.
    await run('go', ['build', '-o', `${out}.partial`, pkg], { cwd: work, env });
    await rename(`${out}.partial`, out);
  }
  return { server, sqlTool, moduleDir, built: true };
}

async function downloadModule(): Promise<string> {
  const out = await run('go', ['mod', 'download', '-json', `${MODULE}@v${TEMPORAL_SERVER_VERSION}`], {
    env: goEnv(),
  });
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`go mod download did not report the folder of ${MODULE}: ${out}`);
  return dir;
}
