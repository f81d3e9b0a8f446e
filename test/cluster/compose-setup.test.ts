import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { readEnv } from '../../src/config';
import { ensureTemporalCli } from '../../src/devserver/find-cli';
import { TFLOW_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import { waitFor } from '../helpers/wait-for';
import { CLUSTER_RETENTION_DAYS, DYNAMIC_CONFIG_FILE, REPO_ROOT } from './harness/cluster-versions';
import { run } from './harness/commands';

/*
 * docker-compose.yml cannot run here (no Docker engine), but its setup steps can: the admin-tools script
 * with the compose file's own environment, against the cluster, on a namespace of its own; and the
 * shared dynamic config, checked by the server binary of the harness. Runs with the suite (`test:cluster`).
 */

const layout = inject('clusterLayout');
let connection: Connection;
let cli: string;

beforeAll(async () => {
  connection = await Connection.connect({ address: layout.temporal.address });
  const env = readEnv();
  cli = (await ensureTemporalCli({ explicitPath: env.temporalCli, searchPath: env.path, home: env.home }))
    .path;
});
afterAll(async () => connection?.close());

/** docker-compose.yml's environment of the admin-tools service, pointed at the cluster and `namespace`. */
function adminToolsEnv(namespace: string): NodeJS.ProcessEnv {
  const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8')) as {
    services: Record<string, { environment: Record<string, string> }>;
  };
  return {
    ...process.env,
    ...compose.services['temporal-admin-tools']!.environment,
    TEMPORAL_ADDRESS: layout.temporal.address,
    TEMPORAL_NAMESPACE: namespace,
    PATH: `${path.dirname(cli)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
}

const { IndexedValueType } = temporal.api.enums.v1;
const typeCode = (type: string) =>
  IndexedValueType[`INDEXED_VALUE_TYPE_${type.toUpperCase()}` as keyof typeof IndexedValueType];

describe("docker-compose's setup steps on the cluster", () => {
  it('setup-namespace.sh creates the namespace with 30 days of retention and our search attributes, and re-runs cleanly', async () => {
    const namespace = `compose-${randomUUID()}`;
    const script = path.join(REPO_ROOT, 'config/temporal/setup-namespace.sh');
    await run('sh', [script], { env: adminToolsEnv(namespace), timeoutMs: 90_000 });

    const described = await connection.workflowService.describeNamespace({ namespace });
    expect(Number(described.config?.workflowExecutionRetentionTtl?.seconds)).toBe(
      CLUSTER_RETENTION_DAYS * 24 * 3600,
    );
    const attributes = await waitFor('the search attributes to be listed', async () => {
      const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
      return Object.keys(TFLOW_SEARCH_ATTRIBUTES).every((n) => customAttributes?.[n] !== undefined)
        ? customAttributes
        : undefined;
    });
    for (const [name, type] of Object.entries(TFLOW_SEARCH_ATTRIBUTES))
      expect(attributes[name], name).toBe(typeCode(type));

    const again = await run('sh', [script], { env: adminToolsEnv(namespace), timeoutMs: 90_000 });
    for (const name of Object.keys(TFLOW_SEARCH_ATTRIBUTES))
      expect(again).toContain(`search attribute ${name}: already registered`);
  });

  it('the shared dynamic config names only keys the server knows', async () => {
    const out = await run(layout.temporal.binary, [
      'validate-dynamic-config',
      path.join(REPO_ROOT, DYNAMIC_CONFIG_FILE),
    ]);
    expect(out).not.toMatch(/warning|error/i);
  });
});
