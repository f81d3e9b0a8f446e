/*
 * A traced worker's parts (createWorker({ tracing })): Temporal's OpenTelemetry activity interceptors (one
 * span per step attempt, child of the span that scheduled the step), ours inside them naming the attempt,
 * and the sink through which the workflow sandbox hands its spans (the run's, each step's schedule) to
 * the span processor.
 */
import { defaultPayloadConverter } from '@temporalio/common';
import type * as OtelWorker from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { Tracing } from '../client/tracing';
import { RUN_HEADER, type RunHeader } from '../workflows/idempotency/run-header';
import { STEP_PATH_HEADER } from '../workflows/idempotency/occurrence';
import { TRACE_ATTRIBUTES } from '../workflows/tracing/tracing-defs';
import { otel } from '../client/tracing-setup';

/** Temporal's worker-side interceptors, loaded when a traced worker is made (importing this file loads none). */
function otelWorker(): typeof OtelWorker {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when tracing is on
  return require('@temporalio/interceptors-opentelemetry/lib/worker') as typeof OtelWorker;
}

/** Temporal's activity interceptors: the span of each attempt (`RunActivity:<activity>`), and log attributes. */
export function otelActivityInterceptor(tracing: Tracing): ActivityInterceptorsFactory {
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } = otelWorker();
  return (ctx) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: tracing.tracer }),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  });
}

/**
 * Names the attempt on its span (placed inside {@link otelActivityInterceptor}, whose span is active):
 * step id, attempt, and the run's pipeline, job and nominal time from its activity header (run-header.ts).
 */
export const stepAttemptAttributes: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const span = otel().api.trace.getActiveSpan();
      if (span) {
        const { info } = ctx;
        const header = input.headers[RUN_HEADER];
        const run = header ? defaultPayloadConverter.fromPayload<RunHeader>(header) : undefined;
        const local = input.headers[STEP_PATH_HEADER];
        const step = local ? defaultPayloadConverter.fromPayload<string>(local) : info.activityId;
        span.setAttributes({
          [TRACE_ATTRIBUTES.step]: step,
          [TRACE_ATTRIBUTES.attempt]: info.attempt,
          ...(run?.pipeline ? { [TRACE_ATTRIBUTES.pipeline]: run.pipeline } : {}),
          ...(run?.jobId ? { [TRACE_ATTRIBUTES.jobId]: run.jobId } : {}),
          ...(run?.nominalTime ? { [TRACE_ATTRIBUTES.nominalTime]: run.nominalTime } : {}),
        });
      }
      return next(input);
    },
  },
});

/**
 * The `exporter` sink the sandbox's OpenTelemetry interceptors send their finished spans to. Temporal's
 * own copies the whole workflow info (memo and search attributes included) onto every span; this one
 * passes the run's identity only, so that a memo never leaves in a trace.
 */
export function workflowSpanSink(tracing: Tracing): InjectedSinks<OpenTelemetrySinks> {
  const inner = otelWorker().makeWorkflowExporter(tracing.spanProcessor, tracing.resource);
  return {
    exporter: {
      export: {
        ...inner.export,
        fn: (info, spans) => inner.export.fn(identityOf(info), spans),
      },
    },
  };
}

function identityOf(info: WorkflowInfo): WorkflowInfo {
  const { workflowId, runId, workflowType, taskQueue, namespace, attempt } = info;
  // Only these end up as span attributes (makeWorkflowExporter copies the object's fields onto each span).
  return { workflowId, runId, workflowType, taskQueue, namespace, attempt } as WorkflowInfo;
}
