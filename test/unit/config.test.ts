import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionOptions, readEnv } from '../../src/config';
import { TemporalFlowError } from '../../src/errors';

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
      metricsPort: undefined,
      path: '/bin',
    });
  });

  it('reads every variable, ignoring a metrics port that is not a port number', () => {
    const env = readEnv({
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'prod',
      TFLOW_HOME: '/srv/tflow',
      TFLOW_TASK_QUEUE: 'etl',
      TFLOW_METRICS_PORT: '9464',
    });
    expect(env).toMatchObject({
      temporalAddress: 'temporal:7233',
      namespace: 'prod',
      home: '/srv/tflow',
      taskQueue: 'etl',
      metricsPort: 9464,
    });
    expect(readEnv({ TFLOW_METRICS_PORT: 'http' }).metricsPort).toBeUndefined();
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

  it('uses mTLS with the client certificate and key files', () => {
    const env = readEnv({
      TEMPORAL_TLS_CERT: path.join(dir, 'client.pem'),
      TEMPORAL_TLS_KEY: path.join(dir, 'client.key'),
    });
    expect(connectionOptions(env, 'x:7233')).toEqual({
      address: 'x:7233',
      tls: { clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') } },
    });
  });

  it('says what is missing when only the certificate is set', () => {
    expect(() => connectionOptions(readEnv({ TEMPORAL_TLS_KEY: 'k.pem' }), 'x:7233')).toThrow(
      TemporalFlowError,
    );
    expect(() =>
      connectionOptions(readEnv({ TEMPORAL_TLS_CERT: path.join(dir, 'client.pem') }), 'x:7233'),
    ).toThrow(
      'set both TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY (client certificate and its key) for mTLS, or neither',
    );
  });
});
