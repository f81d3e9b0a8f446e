import path from 'node:path';
import { run } from './commands';
import { GO_TOOLCHAIN, TEMPORAL_SERVER_VERSION } from './cluster-versions';
import { checkGo, ensureGoBinaries, goEnv } from '../../helpers/go-build';

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

/**
 * Builds `temporal-server` and `temporal-sql-tool` of {@link TEMPORAL_SERVER_VERSION} with Go (toolchain
 * and modules from the Go module proxy) into `<cacheDir>/bin/v<version>/`, or reuses them when present.
 */
export async function ensureServerBinaries(cacheDir: string): Promise<ServerBinaries> {
  const binDir = path.join(cacheDir, 'bin', `v${TEMPORAL_SERVER_VERSION}`);
  const server = path.join(binDir, 'temporal-server');
  const sqlTool = path.join(binDir, 'temporal-sql-tool');
  const purpose = `the cluster harness (to build Temporal ${TEMPORAL_SERVER_VERSION})`;
  await checkGo(GO_TOOLCHAIN, purpose);
  const moduleDir = await downloadModule();
  const built = await ensureGoBinaries({
    module: MODULE,
    version: TEMPORAL_SERVER_VERSION,
    toolchain: GO_TOOLCHAIN,
    binaries: [
      [`${MODULE}/cmd/server`, server],
      [`${MODULE}/cmd/tools/sql`, sqlTool],
    ],
    // A throw-away module that requires the server at the pinned version, so `go build` resolves it.
    workDir: path.join(cacheDir, 'gomod'),
    moduleName: 'tflowcluster',
    purpose,
  });
  return { server, sqlTool, moduleDir, built };
}

async function downloadModule(): Promise<string> {
  const out = await run('go', ['mod', 'download', '-json', `${MODULE}@v${TEMPORAL_SERVER_VERSION}`], {
    env: goEnv(GO_TOOLCHAIN),
  });
  const dir = (JSON.parse(out) as { Dir?: string }).Dir;
  if (!dir) throw new Error(`go mod download did not report the folder of ${MODULE}: ${out}`);
  return dir;
}
