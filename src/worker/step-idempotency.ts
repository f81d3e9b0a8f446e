import { Context } from '@temporalio/activity';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { TemporalFlowError } from '../errors';
import { OCCURRENCE_HEADER, STEP_PATH_HEADER } from '../workflows/idempotency/occurrence';

/** `stepIdempotencyKey()` was called outside a step (an activity being executed by a worker). */
export class NotInStepError extends TemporalFlowError {
  constructor(options?: { cause?: unknown }) {
    super(
      'NOT_IN_STEP',
      'stepIdempotencyKey() reads the running step: call it inside a step function, while the worker executes it',
      options,
    );
  }
}

/** The occurrence (and, for a local step, the step path) headers of each activity being executed. */
const occurrences = new WeakMap<Context, string>();
const stepPaths = new WeakMap<Context, string>();

/** A string header, or undefined. */
function readHeader(headers: Headers, name: string): string | undefined {
  const header = headers[name];
  if (!header) return undefined;
  const value: unknown = defaultPayloadConverter.fromPayload(header);
  return typeof value === 'string' ? value : undefined;
}

/** Reads the headers the workflow interceptor put on the activity (see occurrence.ts). */
export const occurrenceInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      const occurrence = readHeader(input.headers, OCCURRENCE_HEADER);
      if (occurrence !== undefined) occurrences.set(ctx, occurrence);
      const stepPath = readHeader(input.headers, STEP_PATH_HEADER);
      if (stepPath !== undefined) stepPaths.set(ctx, stepPath);
      return next(input);
    },
  },
});

/**
 * A key for the step execution running now, to make its side effects idempotent (e.g. an
 * `Idempotency-Key` header, or a unique column): `<occurrence>/<step path>`.
 *
 * - the same on every attempt of the step, and when the run is redriven (`PipelineClient.redrive()`);
 * - the occurrence is `<jobId>@<nominal time>` for a scheduled run, else the run's workflow id (of the
 *   first run, for a redrive), so two occurrences or two runs never share a key;
 * - the step path is the step id, or `<map id>[<item index>]` for an item of a map.
 *
 * Treat it as opaque text (it can be long: hash it if a service limits key length). A step run on a
 * worker whose workflow bundle lacks {@link WORKFLOW_INTERCEPTOR_MODULES} gets `<workflow id>/<step path>`,
 * which a redrive changes.
 *
 * @throws NotInStepError outside a step.
 */
export function stepIdempotencyKey(): string {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch (err) {
    throw new NotInStepError({ cause: err });
  }
  const occurrence = occurrences.get(ctx) ?? ctx.info.workflowExecution?.workflowId ?? '';
  return `${occurrence}/${stepPaths.get(ctx) ?? ctx.info.activityId}`;
}
