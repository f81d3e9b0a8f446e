import { stringify } from 'yaml';
import { DATABASES } from './schema';
import type { PostgresLayout } from './postgres';

/** Ports of one Temporal process running all four services. */
export interface ServerPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

const datastore = (db: PostgresLayout, databaseName: string, maxConns: number) => ({
  sql: {
    pluginName: 'postgres12',
    databaseName,
    connectAddr: `127.0.0.1:${db.port}`,
    connectProtocol: 'tcp',
    user: db.user,
    password: db.password,
    maxConns,
    maxIdleConns: maxConns,
    maxConnLifetime: '1h',
  },
});

/**
 * The server's static config, shaped like the module's config/development-postgres12.yaml: PostgreSQL
 * persistence and SQL visibility, every service on 127.0.0.1 with its own free ports, no archival, and
 * the shared dynamic config file.
 */
export function renderServerConfig(opts: {
  db: PostgresLayout;
  ports: ServerPorts;
  dynamicConfigFile: string;
}): string {
  const { db, ports } = opts;
  const service = (grpcPort: number, membershipPort: number, extra: object = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  return stringify({
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(db, DATABASES.temporal, 20),
        'postgres-visibility': datastore(db, DATABASES.visibility, 10),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: service(ports.frontend, ports.frontendMembership, { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.historyMembership),
      matching: service(ports.matching, ports.matchingMembership),
      worker: service(ports.worker, ports.workerMembership),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: opts.dynamicConfigFile, pollInterval: '10s' },
  });
}
