import { describe, expect, it } from 'vitest';
import { InvalidConfigError, readEnv, readTracingEnv } from '../../src/config';
import { resolveTracing } from '../../src/client/tracing';
import { resourceFromEnv } from '../../src/client/tracing-setup';

describe('the OTEL_* variables of tracing (src/config.ts)', () => {
  it('defaults to OTLP/HTTP protobuf on localhost:4318, service temporal-flow', () => {
    const env = readTracingEnv({});
    expect(env).toMatchObject({
      disabled: false,
      exporter: 'otlp',
      endpoint: 'http://localhost:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      timeoutMs: 10_000,
    });
    expect(resourceFromEnv(env).attributes['service.name']).toBe('temporal-flow');
  });

  it('appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT, takes the traces endpoint as given', () => {
    expect(readTracingEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318/' }).endpoint).toBe(
      'http://jaeger:4318/v1/traces',
    );
    expect(
      readTracingEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otel.example/traces',
      }).endpoint,
    ).toBe('https://otel.example/traces');
  });

  it('reads headers, resource attributes (OTEL_SERVICE_NAME wins), protocol, timeout, disabled', () => {
    const env = readTracingEnv({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-a=1,authorization=Bearer%20abc',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-only=traces',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=from-attrs,deployment.environment=prod',
      OTEL_SERVICE_NAME: 'etl-worker',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_SDK_DISABLED: 'TRUE',
    });
    expect(env.headers).toEqual({ 'x-only': 'traces' });
    expect(env.protocol).toBe('http/json');
    expect(env.timeoutMs).toBe(2500);
    expect(env.disabled).toBe(true);
    expect(resourceFromEnv(env).attributes).toMatchObject({
      'service.name': 'etl-worker',
      'deployment.environment': 'prod',
    });
    expect(readTracingEnv({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc' }).headers).toEqual({
      authorization: 'Bearer abc',
    });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL', /http\/protobuf or http\/json/],
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, 'OTEL_TRACES_EXPORTER', /otlp, console or none/],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'jaeger:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      /http:\/\/ or https:\/\//,
    ],
    [{ OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: 'soon' }, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', /milliseconds/],
    [{ OTEL_RESOURCE_ATTRIBUTES: 'service.name' }, 'OTEL_RESOURCE_ATTRIBUTES', /key=value/],
  ])('refuses %o with a typed error naming %s', (vars, field, message) => {
    let err: unknown;
    try {
      readTracingEnv(vars);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidConfigError);
    expect(err).toMatchObject({ field, message: expect.stringMatching(message) as unknown });
  });

  it('is part of readEnv', () => {
    expect(readEnv({ OTEL_SERVICE_NAME: 'svc' }).tracing.serviceName).toBe('svc');
  });

  it('is off unless asked for', () => {
    expect(resolveTracing(undefined)).toBeUndefined();
    expect(resolveTracing(false)).toBeUndefined();
  });
});
