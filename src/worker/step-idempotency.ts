import { Context } from '@temporalio/activity';
import { defaultPayloadConverter, type Headers, type Payload } from '@temporalio/common';
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

/**
 * The headers of each activity being executed, kept as they came: they are decoded only when the step
 * asks for its key (most steps never do), not on every activity.
 */
const headersOf = new WeakMap<Context, Headers>();

/** A string header, or undefined. */
function readHeader(header: Payload | undefined): string | undefined {
  if (!header) return undefined;
  const value: unknown = defaultPayloadConverter.fromPayload(header);
  return typeof value === 'string' ? value : undefined;
}

/** Keeps the headers the workflow interceptor put on the activity (see occurrence.ts), for stepIdempotencyKey(). */
export const occurrenceInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    execute(input, next) {
      // Not async: it only keeps a reference (an async frame would add a promise per activity).
      if (input.headers[OCCURRENCE_HEADER] || input.headers[STEP_PATH_HEADER])
        headersOf.set(ctx, input.headers);
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
  const headers = headersOf.get(ctx);
  const occurrence = readHeader(headers?.[OCCURRENCE_HEADER]) ?? ctx.info.workflowExecution?.workflowId ?? '';
  return `${occurrence}/${readHeader(headers?.[STEP_PATH_HEADER]) ?? ctx.info.activityId}`;
}
