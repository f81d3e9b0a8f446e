import path from 'node:path';

/*
 * The production-shaped cluster of `npm run test:cluster` and docker-compose.yml share these facts;
 * test/unit/docker-compose.test.ts keeps the compose file in step with them.
 */

/** Temporal server release: built from `go.temporal.io/server` here, the same tag of the Docker images. */
export const TEMPORAL_SERVER_VERSION = '1.32.2';

/** Go toolchain that builds {@link TEMPORAL_SERVER_VERSION} (fetched by `go` itself through GOTOOLCHAIN). */
export const GO_TOOLCHAIN = 'go1.27.3';

/** Retention of the `default` namespace on the cluster: run history and dead letters live this long. */
export const CLUSTER_RETENTION_DAYS = 30;

/** The server's dynamic config, one file for the harness and docker-compose (path from the repo root). */
export const DYNAMIC_CONFIG_FILE = 'config/temporal/dynamicconfig.yaml';

/** Repository root. */
export const REPO_ROOT = path.resolve(__dirname, '../../..');
