import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_SCHEDULE_START_RPS } from '../../src/config';
import { SCHEDULE_START_RPS_KEY } from '../../src/devserver/dynamic-config';
import { TFLOW_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import {
  CLUSTER_RETENTION_DAYS,
  DYNAMIC_CONFIG_FILE,
  TEMPORAL_SERVER_VERSION,
} from '../cluster/harness/cluster-versions';

/*
 * docker-compose.yml cannot run here (no Docker engine): check that it parses and that its services,
 * ports and environment fit together, as `docker compose config` and a first `up` would, and that it
 * runs the cluster `npm run test:cluster` tests: same server version, retention, dynamic config and
 * schema script.
 */

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  ports?: string[];
  command?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
}

const root = path.resolve(__dirname, '../..');
const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const svc = (name: string): Service => {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service "${name}"`);
  return s;
};

describe('docker-compose.yml', () => {
  it('has the cluster: PostgreSQL, schema setup, Temporal, admin tools, UI and our worker', () => {
    expect(Object.keys(services).sort()).toEqual([
      'postgresql',
      'temporal',
      'temporal-admin-tools',
      'temporal-schema',
      'temporal-ui',
      'worker',
    ]);
    expect(svc('postgresql').image).toMatch(/^postgres:\d+$/);
    expect(svc('temporal-ui').image).toMatch(/^temporalio\/ui:\d+\.\d+\.\d+$/);
  });

  it('runs the Temporal server version of the cluster harness, with admin tools of the same version', () => {
    expect(svc('temporal').image).toBe(`temporalio/server:${TEMPORAL_SERVER_VERSION}`);
    expect(svc('temporal-schema').image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
    expect(svc('temporal-admin-tools').image).toBe(`temporalio/admin-tools:${TEMPORAL_SERVER_VERSION}`);
  });

  it("mounts the harness's dynamic config file where the server reads it", () => {
    const env = svc('temporal').environment!;
    // The server image resolves the path against its working folder, /etc/temporal.
    const target = `/etc/temporal/${env.DYNAMIC_CONFIG_FILE_PATH}`;
    expect(svc('temporal').volumes).toContain(`./${DYNAMIC_CONFIG_FILE}:${target}:ro`);
    expect(existsSync(path.join(root, DYNAMIC_CONFIG_FILE))).toBe(true);
  });

  it('sets the retention of the cluster harness on the namespace', () => {
    expect(svc('temporal-admin-tools').environment?.TFLOW_RETENTION).toBe(`${CLUSTER_RETENTION_DAYS}d`);
    expect(svc('temporal-admin-tools').environment?.TEMPORAL_NAMESPACE).toBe('default');
  });

  it("runs the setup scripts of config/temporal, the schema one being the harness's own", () => {
    for (const name of ['temporal-schema', 'temporal-admin-tools']) {
      const s = svc(name);
      expect(s.volumes, name).toEqual(['./config/temporal:/etc/tflow:ro']);
      const script = s.command![0]!.replace('/etc/tflow/', 'config/temporal/');
      expect(existsSync(path.join(root, script)), script).toBe(true);
    }
    expect(svc('temporal-schema').command).toEqual(['/etc/tflow/setup-schema.sh']);
    expect(svc('temporal-schema').environment?.TEMPORAL_SCHEMA_DIR).toBe(
      '/etc/temporal/schema/postgresql/v12',
    );
    expect(svc('temporal-admin-tools').command).toEqual(['/etc/tflow/setup-namespace.sh']);
  });

  it('persists Temporal in the PostgreSQL service with matching credentials', () => {
    const pg = svc('postgresql').environment!;
    const t = svc('temporal').environment!;
    expect(t.DB).toBe('postgres12');
    expect(t.POSTGRES_SEEDS).toBe('postgresql');
    expect(t.POSTGRES_USER).toBe(pg.POSTGRES_USER);
    expect(t.POSTGRES_PWD).toBe(pg.POSTGRES_PASSWORD);
    expect(t.DB_PORT).toBe('5432');
    const schema = svc('temporal-schema').environment!;
    expect([schema.SQL_HOST, schema.SQL_PORT, schema.SQL_USER, schema.SQL_PASSWORD]).toEqual([
      t.POSTGRES_SEEDS,
      t.DB_PORT,
      pg.POSTGRES_USER,
      pg.POSTGRES_PASSWORD,
    ]);
    expect(svc('temporal').depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    expect(Object.keys(compose.volumes)).toContain('postgresql-data');
  });

  it('points every client at the Temporal frontend it publishes', () => {
    expect(svc('temporal').ports).toContain('7233:7233');
    for (const name of ['temporal-admin-tools', 'temporal-ui', 'worker']) {
      expect(svc(name).environment?.TEMPORAL_ADDRESS, name).toBe('temporal:7233');
    }
  });

  it('starts services in order: each dependency exists, with a health check where it waits for health', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, { condition }] of Object.entries(s.depends_on ?? {})) {
        expect(services, `${name} depends on ${dep}`).toHaveProperty(dep);
        if (condition === 'service_healthy')
          expect(services[dep]!.healthcheck, `${dep} needs a healthcheck`).toBeDefined();
      }
    }
    expect(svc('worker').depends_on).toEqual({
      'temporal-admin-tools': { condition: 'service_completed_successfully' },
    });
  });

  it('publishes each host port once', () => {
    const hostPorts = Object.values(services).flatMap((s) => (s.ports ?? []).map((p) => p.split(':')[0]));
    expect(new Set(hostPorts).size).toBe(hostPorts.length);
    expect(svc('temporal-ui').ports).toEqual(['8080:8080']);
  });

  it('registers exactly the search attributes temporal-flow needs', () => {
    const pairs = svc('temporal-admin-tools')
      .environment!.TFLOW_SEARCH_ATTRIBUTES!.split(/\s+/)
      .filter(Boolean);
    expect(Object.fromEntries(pairs.map((p) => p.split('=')))).toEqual(TFLOW_SEARCH_ATTRIBUTES);
    const script = readFileSync(path.join(root, 'config/temporal/setup-namespace.sh'), 'utf8');
    expect(script).toContain('temporal operator search-attribute create');
    expect(script).toContain('for pair in $TFLOW_SEARCH_ATTRIBUTES');
  });

  it('builds the worker from a Dockerfile whose command and sources exist', () => {
    const build = svc('worker').build!;
    const dockerfile = readFileSync(path.join(root, build.context, build.dockerfile), 'utf8');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    const argv = JSON.parse(cmd!) as string[];
    expect(existsSync(path.join(root, argv[argv.length - 1]!))).toBe(true);
    for (const [, src] of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm))
      expect(existsSync(path.join(root, src!)), src).toBe(true);
    expect(svc('worker').environment?.TFLOW_METRICS_PORT).toBe('9464');
    expect(svc('worker').ports).toContain('9464:9464');
  });

  it("the cluster dynamic config starts scheduled runs at the embedded server's rate", () => {
    const config = parse(readFileSync(path.join(root, DYNAMIC_CONFIG_FILE), 'utf8')) as Record<
      string,
      { value: unknown }[]
    >;
    expect(config[SCHEDULE_START_RPS_KEY]?.[0]?.value).toBe(DEFAULT_SCHEDULE_START_RPS);
  });
});
