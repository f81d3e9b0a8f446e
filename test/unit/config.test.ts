import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionOptions, InvalidConfigError, readEnv } from '../../src/config';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-config-'));
  await writeFile(path.join(dir, 'client.pem'), 'CERT');
  await writeFile(path.join(dir, 'client.key'), 'KEY');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

describe('readEnv', () => {
  it('defaults to the embedded server, namespace default, ./.tflow and task queue pipelines', () => {
    const env = readEnv({ PATH: '/bin' });
    expect(env).toMatchObject({
      temporalAddress: undefined,
      namespace: 'default',
      home: path.resolve('.tflow'),
      taskQueue: 'pipelines',
      watchdogTaskQueue: undefined,
      metricsPort: undefined,
      path: '/bin',
    });
  });

  it('reads every variable', () => {
    const env = readEnv({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'prod',
      TFLOW_HOME: '/srv/tflow',
      TFLOW_TASK_QUEUE: 'etl',
      TFLOW_WATCHDOG_TASK_QUEUE: 'etl-watchdog',
      TFLOW_METRICS_PORT: '9464',
    });
    expect(env).toMatchObject({
      temporalAddress: 'temporal:7233',
      namespace: 'prod',
      home: '/srv/tflow',
      taskQueue: 'etl',
      watchdogTaskQueue: 'etl-watchdog',
      metricsPort: 9464,
    });
    expect(readEnv({ TFLOW_METRICS_PORT: '0' }).metricsPort).toBe(0);
    expect(readEnv({ TFLOW_METRICS_PORT: '' }).metricsPort).toBeUndefined();
  });

  it.each(['http', '-1', '65536', '9464.5', '1e3', ' '])(
    'refuses TFLOW_METRICS_PORT=%j with an error naming it and what it may be (it turned metrics off)',
    (raw) => {
      const err = (() => {
        try {
          readEnv({ TFLOW_METRICS_PORT: raw });
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(InvalidConfigError);
      expect(err).toMatchObject({ field: 'TFLOW_METRICS_PORT' });
      expect((err as Error).message).toBe(
        `TFLOW_METRICS_PORT must be a port number, 0-65535 (0 picks a free one), or unset to serve no metrics; got "${raw}"`,
      );
    },
  );
});

describe('readEnv: colors of tflow', () => {
  it.each([
    [{}, 'auto'],
    [{ TERM: 'dumb' }, 'never'],
    [{ NO_COLOR: '1' }, 'never'],
    [{ FORCE_COLOR: '1' }, 'always'],
    [{ FORCE_COLOR: '' }, 'always'],
    [{ FORCE_COLOR: '0' }, 'never'],
    [{ NO_COLOR: '1', FORCE_COLOR: '1' }, 'never'], // NO_COLOR wins
  ] as const)('%j -> %s', (vars, mode) => {
    expect(readEnv({ ...vars }).color).toBe(mode);
  });
});

describe('connectionOptions', () => {
  it('is plain without credentials', () => {
    expect(connectionOptions(readEnv({}), 'localhost:7233')).toEqual({ address: 'localhost:7233' });
  });

  it('uses an API key over TLS', () => {
    expect(connectionOptions(readEnv({ TEMPORAL_API_KEY: 'k' }), 'ns.tmprl.cloud:7233')).toEqual({
      address: 'ns.tmprl.cloud:7233',
      apiKey: 'k',
      tls: true,
    });
  });

  it('uses mTLS with the client certificate and key files (standard names)', () => {
    const env = readEnv({
      TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'client.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'client.key'),
    });
    expect(connectionOptions(env, 'x:7233')).toEqual({
      address: 'x:7233',
      tls: { clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') } },
    });
  });

  it('says what is missing when only the certificate is set', () => {
    expect(() => connectionOptions(readEnv({ TEMPORAL_TLS_CLIENT_KEY_PATH: 'k.pem' }), 'x:7233')).toThrow(
      InvalidConfigError,
    );
    expect(() =>
      connectionOptions(readEnv({ TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'client.pem') }), 'x:7233'),
    ).toThrow(
      'set both TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (client certificate and its key, or their _DATA forms) for mTLS, or neither',
    );
  });

  it('names the variable of an unreadable file, as a typed error (not a raw fs error)', () => {
    const env = readEnv({
      TEMPORAL_TLS_CLIENT_CERT_PATH: path.join(dir, 'client.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: path.join(dir, 'missing.key'),
    });
    let caught: unknown;
    try {
      connectionOptions(env, 'x:7233');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(InvalidConfigError);
    expect(caught).toMatchObject({ field: 'TEMPORAL_TLS_CLIENT_KEY_PATH', code: 'INVALID_CONFIG' });
    expect((caught as Error).message).toBe(
      `cannot read TEMPORAL_TLS_CLIENT_KEY_PATH (${path.join(dir, 'missing.key')}): ENOENT; check the path and its permissions`,
    );
  });

  it('refuses the variables of 0.1 with the standard name to use', () => {
    expect(() => readEnv({ TEMPORAL_TLS_CERT: 'c.pem' })).toThrow(
      'TEMPORAL_TLS_CERT is no longer read: set TEMPORAL_TLS_CLIENT_CERT_PATH instead',
    );
  });
});

describe('Temporal TOML profiles (@temporalio/envconfig)', () => {
  it('reads address, namespace and API key from the profile named by TEMPORAL_PROFILE; env variables win', async () => {
    const file = path.join(dir, 'temporal.toml');
    await writeFile(
      file,
      [
        '[profile.default]',
        'address = "localhost:7233"',
        '[profile.prod]',
        'address = "prod.example:7233"',
        'namespace = "etl"',
        'api_key = "secret"',
      ].join('\n'),
    );
    const prod = readEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' });
    expect(prod).toMatchObject({ temporalAddress: 'prod.example:7233', namespace: 'etl' });
    expect(connectionOptions(prod, prod.temporalAddress!)).toEqual({
      address: 'prod.example:7233',
      apiKey: 'secret',
      tls: true,
    });
    expect(
      readEnv({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'other' })
        .namespace,
    ).toBe('other');
    expect(readEnv({ TEMPORAL_CONFIG_FILE: file }).temporalAddress).toBe('localhost:7233');
  });

  it('a malformed profile file is a typed error naming TEMPORAL_CONFIG_FILE', async () => {
    const file = path.join(dir, 'bad.toml');
    await writeFile(file, '[profile.default\naddress = ');
    expect(() => readEnv({ TEMPORAL_CONFIG_FILE: file })).toThrow(InvalidConfigError);
    expect(() => readEnv({ TEMPORAL_CONFIG_FILE: file })).toThrow(
      `cannot read the Temporal config file ${file} (TEMPORAL_CONFIG_FILE)`,
    );
  });
});
