/*
 * Tracing: the OpenTelemetry side shared by the clients (PipelineClient, PipelineScheduler) and the worker
 * (createWorker). Spans are made by Temporal's own interceptors (`@temporalio/interceptors-opentelemetry`);
 * tracing-setup.ts owns the tracer provider they are made with and where its spans go. Off unless asked
 * for, and free when off: both files import OpenTelemetry as types only; the SDK and the exporters are
 * loaded the first time a `tracing` option turns tracing on.
 */
import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Client } from '@temporalio/client';
import { readTracingEnv } from '../config';
import * as setup from './tracing-setup';

export { TRACE_ATTRIBUTES } from '../workflows/tracing/tracing-defs';

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

let fromEnv: Tracing | null | undefined;
const fromOptions = new WeakMap<TracingOptions, Tracing>();

/**
 * The tracing setup of a `tracing` option, or undefined when tracing is off (the option is false or absent,
 * or OTEL_SDK_DISABLED=true). `true` gives one setup per process, shared by its clients and workers; the
 * same options object gives the same setup. The first setup of a process is registered as OpenTelemetry's
 * global tracer provider (with W3C trace-context propagation and an AsyncLocalStorage context manager)
 * unless the process registered its own, so that the caller's spans and ours make one trace.
 *
 * @throws InvalidConfigError when an OTEL_* variable it needs is malformed (see readTracingEnv).
 */
export function resolveTracing(option: TracingOption | undefined): Tracing | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) {
    if (fromEnv === undefined) {
      const env = readTracingEnv();
      fromEnv = env.disabled ? null : setup.tracingFromEnv(env);
    }
    return fromEnv ?? undefined;
  }
  let made = fromOptions.get(option);
  if (!made) {
    const env = readTracingEnv();
    if (env.disabled) return undefined;
    made = setup.tracingFromOptions(option, env);
    fromOptions.set(option, made);
  }
  return made;
}

/**
 * The same client with Temporal's OpenTelemetry workflow-client interceptor added last (see
 * tracing-setup.ts).
 */
export function tracedClient(client: Client, tracing: Tracing): Client {
  return setup.tracedClient(client, tracing);
}
