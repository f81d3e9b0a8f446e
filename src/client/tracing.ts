/*
 * Tracing: the OpenTelemetry side shared by the clients (PipelineClient, PipelineScheduler) and the worker
 * (createWorker). Spans are made by Temporal's own interceptors (`@temporalio/interceptors-opentelemetry`);
 * this file owns the tracer provider they are made with and where its spans go. Off unless asked for:
 * without `tracing`, nothing here is loaded into a client's or worker's path (no interceptor, no span).
 */
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { Resource } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NoopSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { Client } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import { readTracingEnv, type TracingEnv } from '../config';
import { InvalidArgumentError } from '../errors';

export { TRACE_ATTRIBUTES } from '../workflows/tracing/tracing-defs';

/** Name of the tracer temporal-flow's spans are made with (the instrumentation scope). */
export const TRACER_NAME = 'temporal-flow';

/**
 * Tracing of a worker or client. `true`: spans go where the standard OTEL_* variables say (OTLP over HTTP,
 * see docs/tracing.md). An object: your own span processor and resource (tests, a no-op, your own SDK
 * setup). `false` or absent: off, at no cost (no interceptor is installed).
 */
export type TracingOption = boolean | TracingOptions;

export interface TracingOptions {
  /**
   * Where finished spans go (e.g. a `BatchSpanProcessor` around your exporter). @default a batch
   * processor exporting as the OTEL_* variables say
   */
  spanProcessor?: SpanProcessor;
  /** Resource of this process's spans. @default `service.name` from OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES, else `temporal-flow` */
  resource?: Resource;
}

/** A resolved tracing setup: what Temporal's interceptors and the workflow span sink are given. */
export interface Tracing {
  readonly tracer: Tracer;
  readonly spanProcessor: SpanProcessor;
  readonly resource: Resource;
  /** Sends the spans still buffered (a worker calls it when it stops). */
  forceFlush(): Promise<void>;
}

/** The span processor the OTEL_* variables ask for (OTLP over HTTP, console, or none). */
export function spanProcessorFromEnv(env: TracingEnv): SpanProcessor {
  if (env.exporter === 'none') return new NoopSpanProcessor();
  if (env.exporter === 'console') return new BatchSpanProcessor(new ConsoleSpanExporter());
  const config = { url: env.endpoint, headers: env.headers, timeoutMillis: env.timeoutMs };
  return new BatchSpanProcessor(
    env.protocol === 'http/json' ? new OtlpJsonExporter(config) : new OtlpProtoExporter(config),
  );
}

/** The resource of the OTEL_* variables: OTEL_RESOURCE_ATTRIBUTES, with `service.name` from OTEL_SERVICE_NAME. */
export function resourceFromEnv(env: TracingEnv): Resource {
  return new Resource({
    ...env.resourceAttributes,
    'service.name': env.serviceName ?? env.resourceAttributes['service.name'] ?? TRACER_NAME,
  });
}

let fromEnv: Tracing | null | undefined;
const fromOptions = new WeakMap<TracingOptions, Tracing>();

/**
 * The tracing setup of a `tracing` option, or undefined when tracing is off (the option is false or absent,
 * or OTEL_SDK_DISABLED=true). `true` gives one setup per process, shared by its clients and workers; the
 * same options object gives the same setup. The first setup of a process is registered as OpenTelemetry's
 * global tracer provider (with W3C trace-context propagation and an AsyncLocalStorage context manager)
 * unless the process registered its own, so that the caller's spans and ours make one trace.
 *
 * @throws InvalidConfigError when `true` and an OTEL_* variable is malformed (see readTracingEnv).
 */
export function resolveTracing(option: TracingOption | undefined): Tracing | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) {
    if (fromEnv === undefined) {
      const env = readTracingEnv();
      fromEnv = env.disabled ? null : makeTracing(spanProcessorFromEnv(env), resourceFromEnv(env));
    }
    return fromEnv ?? undefined;
  }
  let made = fromOptions.get(option);
  if (!made) {
    if (readTracingEnv().disabled) return undefined;
    const env = option.spanProcessor && option.resource ? undefined : readTracingEnv();
    made = makeTracing(
      option.spanProcessor ?? spanProcessorFromEnv(env!),
      option.resource ?? resourceFromEnv(env!),
    );
    fromOptions.set(option, made);
  }
  return made;
}

function makeTracing(spanProcessor: SpanProcessor, resource: Resource): Tracing {
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Each returns false (and changes nothing) when the process already set its own.
  trace.setGlobalTracerProvider(provider);
  const contextManager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(contextManager)) contextManager.enable();
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
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
      workflow: [...own, new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer })],
    },
  });
}
