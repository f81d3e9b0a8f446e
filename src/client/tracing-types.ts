/*
 * The types of tracing (tracing.ts resolves them, tracing-setup.ts builds them): their own file, so that
 * neither of the two imports the other back.
 */
import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

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
