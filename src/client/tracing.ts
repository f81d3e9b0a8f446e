/*
 * Tracing: the OpenTelemetry side shared by the clients (PipelineClient, PipelineScheduler) and the worker
 * (createWorker). Spans are made by Temporal's own interceptors (`@temporalio/interceptors-opentelemetry`);
 * tracing-setup.ts owns the tracer provider they are made with and where its spans go. Off unless asked
 * for, and free when off: both files import OpenTelemetry as types only; the SDK and the exporters are
 * loaded the first time a `tracing` option turns tracing on.
 */
import type { Client } from '@temporalio/client';
import { readTracingEnv } from '../config';
import * as setup from './tracing-setup';
import type { Tracing, TracingOption, TracingOptions } from './tracing-types';

export type { Tracing, TracingOption, TracingOptions } from './tracing-types';

export { TRACE_ATTRIBUTES } from '../workflows/tracing/tracing-defs';

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
