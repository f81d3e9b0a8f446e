/*
 * The OpenTelemetry SDK side of tracing, loaded by tracing.ts only when a `tracing` option turns it on:
 * the tracer provider, the span processor and exporter the OTEL_* variables ask for, the traced client.
 */
import type * as OtelApi from '@opentelemetry/api';
import type * as AsyncHooks from '@opentelemetry/context-async-hooks';
import type * as OtelCore from '@opentelemetry/core';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as OtlpProto from '@opentelemetry/exporter-trace-otlp-proto';
import type * as Resources from '@opentelemetry/resources';
import type { Resource } from '@opentelemetry/resources';
import type * as TraceBase from '@opentelemetry/sdk-trace-base';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import type * as OtelClient from '@temporalio/interceptors-opentelemetry/lib/client';
import type { TracingEnv } from '../config';
import { InvalidArgumentError } from '../errors';
import type { Tracing, TracingOptions } from './tracing-types';

/* eslint-disable @typescript-eslint/no-require-imports -- each package is loaded when tracing is first on */
/** The OpenTelemetry packages, loaded on first use: importing this file loads none of them. */
export function otel() {
  return {
    api: require('@opentelemetry/api') as typeof OtelApi,
    asyncHooks: require('@opentelemetry/context-async-hooks') as typeof AsyncHooks,
    core: require('@opentelemetry/core') as typeof OtelCore,
    otlpHttp: () => require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp,
    otlpProto: () => require('@opentelemetry/exporter-trace-otlp-proto') as typeof OtlpProto,
    resources: require('@opentelemetry/resources') as typeof Resources,
    traceBase: require('@opentelemetry/sdk-trace-base') as typeof TraceBase,
    client: () => require('@temporalio/interceptors-opentelemetry/lib/client') as typeof OtelClient,
  };
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** Name of the tracer temporal-flow's spans are made with (the instrumentation scope). */
export const TRACER_NAME = 'temporal-flow';

/** The span processor the OTEL_* variables ask for (OTLP over HTTP, console, or none). */
export function spanProcessorFromEnv(env: TracingEnv): SpanProcessor {
  const { traceBase, otlpHttp, otlpProto } = otel();
  if (env.exporter === 'none') return new traceBase.NoopSpanProcessor();
  if (env.exporter === 'console')
    return new traceBase.BatchSpanProcessor(new traceBase.ConsoleSpanExporter());
  const config = { url: env.endpoint, headers: env.headers, timeoutMillis: env.timeoutMs };
  return new traceBase.BatchSpanProcessor(
    env.protocol === 'http/json'
      ? new (otlpHttp().OTLPTraceExporter)(config)
      : new (otlpProto().OTLPTraceExporter)(config),
  );
}

/** The resource of the OTEL_* variables: OTEL_RESOURCE_ATTRIBUTES, with `service.name` from OTEL_SERVICE_NAME. */
export function resourceFromEnv(env: TracingEnv): Resource {
  return new (otel().resources.Resource)({
    ...env.resourceAttributes,
    'service.name': env.serviceName ?? env.resourceAttributes['service.name'] ?? TRACER_NAME,
  });
}

/** The process-wide setup of `tracing: true`. */
export function tracingFromEnv(env: TracingEnv): Tracing {
  return makeTracing(spanProcessorFromEnv(env), resourceFromEnv(env));
}

/** The setup of `tracing: { spanProcessor, resource }` (what is left out comes from the OTEL_* variables). */
export function tracingFromOptions(options: TracingOptions, env: TracingEnv): Tracing {
  return makeTracing(
    options.spanProcessor ?? spanProcessorFromEnv(env),
    options.resource ?? resourceFromEnv(env),
  );
}

function makeTracing(spanProcessor: SpanProcessor, resource: Resource): Tracing {
  const { api, asyncHooks, core, traceBase } = otel();
  const provider = new traceBase.BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Each returns false (and changes nothing) when the process already set its own.
  api.trace.setGlobalTracerProvider(provider);
  const contextManager = new asyncHooks.AsyncLocalStorageContextManager();
  if (api.context.setGlobalContextManager(contextManager)) contextManager.enable();
  api.propagation.setGlobalPropagator(
    new core.CompositePropagator({
      propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
    }),
  );
  return {
    tracer: provider.getTracer(TRACER_NAME),
    spanProcessor,
    resource,
    forceFlush: () => spanProcessor.forceFlush(),
  };
}

/**
 * The same client (connection, namespace, data converter, interceptors) with Temporal's OpenTelemetry
 * workflow-client interceptor added last: starting, signalling or querying a run makes a span, child of
 * the caller's active span, whose context the run receives in its headers.
 */
export function tracedClient(client: Client, tracing: Tracing): Client {
  const { interceptors, loadedDataConverter, ...options } = client.options;
  const own = interceptors.workflow ?? [];
  if (!Array.isArray(own)) {
    throw new InvalidArgumentError(
      'tracing',
      "tracing needs the client's workflow interceptors as an array (ClientOptions.interceptors.workflow), not the deprecated { calls } form: pass them as an array",
    );
  }
  return new Client({
    ...options,
    // Plugins configured the options already (their interceptors are in `interceptors`).
    plugins: [],
    connection: client.connection,
    dataConverter: loadedDataConverter,
    interceptors: {
      ...interceptors,
      workflow: [
        ...own,
        new (otel().client().OpenTelemetryWorkflowClientInterceptor)({ tracer: tracing.tracer }),
      ],
    },
  });
}
