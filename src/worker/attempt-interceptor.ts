import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { ATTEMPT_MARKER_TYPE } from '../workflows/failure-types';

/**
 * Temporal does not tell a workflow how many attempts a failed activity made. This interceptor puts the
 * attempt number in the failure's cause chain, so that `PipelineFailed` details report exact attempts.
 *
 * The failure keeps the step's own type, message, details, retry flag and stack (retry policies and
 * `nonRetryableErrorTypes` behave exactly as without it); only its cause becomes a `TflowAttempt`
 * marker whose own cause is the original one. Cancellations and other Temporal failures pass unchanged.
 */
export const attemptInterceptor: ActivityInterceptorsFactory = (ctx) => ({
  inbound: {
    async execute(input, next) {
      try {
        return await next(input);
      } catch (err) {
        throw withAttempt(err, ctx.info.attempt);
      }
    },
  },
});

/** @internal exported for tests: the failure as it leaves the worker, with the attempt marker. */
export function withAttempt(err: unknown, attempt: number): unknown {
  if (!(err instanceof Error)) return err;
  if (err instanceof TemporalFailure && !(err instanceof ApplicationFailure)) return err;
  const marker = ApplicationFailure.create({
    type: ATTEMPT_MARKER_TYPE,
    message: `attempt ${attempt}`,
    details: [{ attempt }],
    ...(err.cause instanceof Error ? { cause: err.cause } : {}),
  });
  const app = err instanceof ApplicationFailure ? err : undefined;
  const wrapped = ApplicationFailure.create({
    message: err.message,
    type: app ? (app.type ?? undefined) : err.name,
    nonRetryable: app?.nonRetryable ?? false,
    ...(app?.details ? { details: [...app.details] } : {}),
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- Duration comes from `ms`'s template-literal type, which the linter cannot resolve
    ...(app?.nextRetryDelay != null ? { nextRetryDelay: app.nextRetryDelay } : {}),
    ...(app?.category != null ? { category: app.category } : {}),
    cause: marker,
  });
  wrapped.stack = err.stack;
  return wrapped;
}
