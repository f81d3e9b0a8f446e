import {
  isGrpcServiceError,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ServiceError,
} from '@temporalio/client';
import { TemporalFlowError } from '../errors';
import { missingCodecError } from '../codec/errors';

/** A job with this id exists already (pass `replaceExisting: true` to update it instead). */
export class JobAlreadyExistsError extends TemporalFlowError {
  constructor(
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super(
      'JOB_EXISTS',
      `job "${jobId}" already exists: choose another jobId, pass replaceExisting: true to update it, or removeJob() it first`,
      options,
    );
  }
}

/** No job (Temporal Schedule) has this id. */
export class JobNotFoundError extends TemporalFlowError {
  constructor(
    readonly jobId: string,
    options?: { cause?: unknown },
  ) {
    super('JOB_NOT_FOUND', `job "${jobId}" not found: listJobs() shows the existing ones`, options);
  }
}

/** The schedule exists but was not created by temporal-flow, so it cannot be managed as a job. */
export class ForeignScheduleError extends TemporalFlowError {
  constructor(readonly jobId: string) {
    super(
      'FOREIGN_SCHEDULE',
      `schedule "${jobId}" was not created by temporal-flow (it does not run pipelineWorkflow): manage it with the Temporal CLI or UI`,
    );
  }
}

/**
 * The namespace lacks one of temporal-flow's search attributes: `tflow setup` (or `setupNamespace()`)
 * has not been run against this server and namespace.
 */
export class SetupRequiredError extends TemporalFlowError {
  constructor(
    readonly attribute: string,
    readonly namespace: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      'SETUP_REQUIRED',
      `search attribute "${attribute}" is not registered in namespace "${namespace ?? '?'}": ` +
        `run \`npx tflow setup\` once against this server (or call setupNamespace() from temporal-flow)`,
      options,
    );
  }
}

/** No Temporal server answers at `address` (or the connection broke). */
export class ServerUnreachableError extends TemporalFlowError {
  constructor(
    readonly address: string,
    readonly reason: string,
    options?: { cause?: unknown; tls?: boolean },
  ) {
    super(
      'SERVER_UNREACHABLE',
      `cannot reach a Temporal server at ${address} (${reason}): start one (\`npx tflow dev\`) or set ` +
        `TEMPORAL_ADDRESS to the host:port of yours` +
        (options?.tls
          ? '; TLS is on (an API key or a TEMPORAL_TLS_* setting is set), and a server without TLS does not answer it'
          : ''),
      options,
    );
  }
}

/** The server answered but refused the credentials (API key or client certificate). */
export class CredentialsRejectedError extends TemporalFlowError {
  constructor(
    readonly address: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      'CREDENTIALS_REJECTED',
      `the Temporal server at ${address} rejected the credentials (${reason}): check TEMPORAL_API_KEY, or ` +
        'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH, and that they are for this namespace',
      options,
    );
  }
}

/**
 * An edit of a job kept meeting concurrent edits: each attempt was computed from a description that
 * another writer changed before the edit landed, and after `attempts` tries (each re-reading the job and
 * re-applying the same change) it still had not landed. Nothing of this edit was written; the job is as the
 * other writers left it. Retry the call, or read the job first if the edit depends on its current state.
 */
export class JobConflictError extends TemporalFlowError {
  constructor(
    readonly jobId: string,
    readonly attempts: number,
  ) {
    super(
      'JOB_CONFLICT',
      `job "${jobId}" was changed by someone else during each of ${attempts} attempts to edit it, so this edit was not applied: retry it (getJob() shows the job as it is now)`,
    );
  }
}

/**
 * A job's alerts (its `TflowAlerts` search attribute) could not be decoded: most often they were encrypted
 * with a codec key this process lacks (a key rotated in on the writers first), so nothing about the job's
 * alerts can be read or written safely here. Raised by reads and writes of the job; in the watchdog's read
 * the activity is retried until the key is there.
 */
export class JobAlertsUnreadableError extends TemporalFlowError {
  constructor(
    readonly jobId: string,
    cause: unknown,
  ) {
    const codec = missingCodecError(cause);
    super(
      'JOB_ALERTS_UNREADABLE',
      `the alerts of job "${jobId}" cannot be decoded: ${codec ? codec.message : cause instanceof Error ? cause.message : String(cause)}; give this process the codec key the job's writers use (TFLOW_CODEC_KEYS, or codecDataConverter on the Client and the watchdog worker)`,
      { cause },
    );
  }
}

/**
 * The shared alert evaluator of a task queue could not be started (a job with expectSuccessWithin or
 * onMissed needs one running on its scheduler's `watchdogTaskQueue`). Nothing was written: the job whose
 * write needed it was not created or changed.
 */
export class AlertEvaluatorStartError extends TemporalFlowError {
  constructor(
    readonly taskQueue: string,
    cause: unknown,
    /** True when the write that needed it had landed (an edit): the job stands, its alerts wait. */
    readonly written = false,
  ) {
    const why =
      cause instanceof Error
        ? cause.cause instanceof Error
          ? `${cause.message}: ${cause.cause.message}`
          : cause.message
        : String(cause);
    super(
      'ALERT_EVALUATOR_START_FAILED',
      `the alert evaluator of task queue "${taskQueue}" could not be started (${why}): ${written ? 'the job was written, and its silent and missed alerts wait for the evaluator (an alert worker on that queue starts it, or `npx tflow doctor --repair`)' : 'nothing was written'}; check the scheduler's watchdogTaskQueue (or --watchdog-task-queue / TFLOW_WATCHDOG_TASK_QUEUE) and that the server answers, then write again`,
      { cause },
    );
  }
}

/**
 * The job's schedule starts runs with no pipeline in their input: an edit made outside temporal-flow
 * (`temporal schedule update` without `--input`, the Temporal UI) replaced the action without it, so its
 * runs fail and temporal-flow cannot edit it in place (the pipeline spec travels in that input).
 */
export class JobInputMissingError extends TemporalFlowError {
  constructor(readonly jobId: string) {
    super(
      'JOB_INPUT_MISSING',
      `job "${jobId}" has no pipeline in its runs' input (an edit made outside temporal-flow replaced it): create it again with schedule(..., { jobId: '${jobId}', replaceExisting: true }) or apply its jobs file; \`temporal schedule update\` needs --input with the input \`temporal schedule describe\` shows`,
    );
  }
}

/**
 * No pipeline run with this workflow id: none at all (or it is past the namespace's retention), or one of
 * another workflow type (`workflowType`).
 */
export class RunNotFoundError extends TemporalFlowError {
  readonly workflowType: string | undefined;

  constructor(
    readonly workflowId: string,
    options: { cause?: unknown; workflowType?: string } = {},
  ) {
    super(
      'RUN_NOT_FOUND',
      options.workflowType === undefined
        ? `no run "${workflowId}" in this namespace (or it is past the retention period): \`tflow runs\` lists runs`
        : `run "${workflowId}" is a "${options.workflowType}" workflow, not a temporal-flow pipeline run`,
      { cause: options.cause },
    );
    this.workflowType = options.workflowType;
  }
}

/** Where a wire error happened, for the messages of the errors it becomes. */
export interface WireErrorContext {
  /** Address of the server, when the caller knows it. */
  address?: string;
  /** TLS was on for this connection. */
  tls?: boolean;
}

/** gRPC status codes met here (numbers fixed by the gRPC spec). */
export const GrpcStatus = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/**
 * The gRPC status code of a wire error: a raw `workflowService` call's error, or the gRPC error an SDK
 * `ServiceError` wraps; `undefined` for anything else.
 */
export function grpcStatusOf(err: unknown): number | undefined {
  const grpc = err instanceof ServiceError ? err.cause : err;
  if (!isGrpcServiceError(grpc)) return undefined;
  const code: number = grpc.code;
  return code;
}

const MISSING_ATTRIBUTE = /Namespace (\S+) has no mapping defined for search attribute (\w+)/;
const UNKNOWN_ATTRIBUTE_IN_QUERY = /invalid search attribute: (\w+)/;

/**
 * The one place where Temporal's wire errors become ours: a search attribute the namespace lacks becomes
 * {@link SetupRequiredError}, an unreachable server {@link ServerUnreachableError}. Returns `undefined`
 * for anything else (the caller rethrows it unchanged).
 */
export function fromWireError(err: unknown, ctx: WireErrorContext = {}): TemporalFlowError | undefined {
  if (err instanceof TemporalFlowError) return err;
  const grpc = err instanceof ServiceError ? err.cause : err;
  const code = grpcStatusOf(err);
  if (code !== undefined && isGrpcServiceError(grpc)) {
    if (code === GrpcStatus.INVALID_ARGUMENT) {
      const missing = MISSING_ATTRIBUTE.exec(grpc.details);
      if (missing) return new SetupRequiredError(missing[2]!, missing[1], { cause: err });
      const inQuery = UNKNOWN_ATTRIBUTE_IN_QUERY.exec(grpc.details);
      if (inQuery) return new SetupRequiredError(inQuery[1]!, undefined, { cause: err });
    }
    if (code === GrpcStatus.UNAUTHENTICATED) {
      return new CredentialsRejectedError(ctx.address ?? 'the configured address', grpc.details, {
        cause: err,
      });
    }
    if (code === GrpcStatus.UNAVAILABLE) {
      return new ServerUnreachableError(ctx.address ?? 'the configured address', grpc.details, {
        cause: err,
        ...(ctx.tls ? { tls: true } : {}),
      });
    }
    return undefined;
  }
  // What grpc-js says when no connection could be made within the connect timeout.
  if (err instanceof Error && err.message === 'Failed to connect before the deadline' && ctx.address) {
    return new ServerUnreachableError(ctx.address, 'no answer before the connect timeout', {
      cause: err,
      ...(ctx.tls ? { tls: true } : {}),
    });
  }
  return undefined;
}

/**
 * True for a describe whose query met the schedule's workflow as it closed (a delete landing at that
 * moment, or the workflow continuing as new): FAILED_PRECONDITION "Workflow execution closed before
 * WorkflowTaskStarted event", which the SDK passes on as a bare ServiceError. Asked again, the describe
 * answers for the schedule as it is now: gone (not found), or its next run.
 */
export function isDescribeMetClose(err: unknown): boolean {
  const grpc = err instanceof ServiceError ? err.cause : err;
  return (
    grpcStatusOf(err) === GrpcStatus.FAILED_PRECONDITION &&
    isGrpcServiceError(grpc) &&
    // grpc-js gives the server's words in `details`; a worker's NativeConnection in the message only.
    /closed before WorkflowTaskStarted/i.test(`${grpc.details} ${grpc.message}`)
  );
}

/**
 * True for the server's refusal of an update whose conflict token is stale. The workflow-based scheduler
 * (Temporal Server 1.x default) does not refuse: it drops such an update silently and answers OK, which
 * is why every write is checked afterwards (see send-update.ts); the newer CHASM scheduler answers
 * FAILED_PRECONDITION "mismatched conflict token".
 */
export function isStaleConflictToken(err: unknown): boolean {
  if (!isGrpcServiceError(err)) return false;
  return (
    grpcStatusOf(err) === GrpcStatus.FAILED_PRECONDITION && /conflict token/i.test(err.details ?? err.message)
  );
}

/** Throws {@link fromWireError}'s translation of `err`, or `err` itself. */
export function translateServiceError(err: unknown, ctx: WireErrorContext = {}): never {
  throw fromWireError(err, ctx) ?? err;
}

/**
 * Translates Temporal client errors about schedules into ours, then any other wire error with
 * {@link translateServiceError}; anything else is rethrown unchanged.
 */
export function translateScheduleError(err: unknown, jobId: string): never {
  if (err instanceof ScheduleAlreadyRunning) throw new JobAlreadyExistsError(jobId, { cause: err });
  if (err instanceof ScheduleNotFoundError) throw new JobNotFoundError(jobId, { cause: err });
  // Raw workflowService calls (conflict-token updates) answer with the gRPC error itself.
  if (isGrpcServiceError(err) && grpcStatusOf(err) === GrpcStatus.NOT_FOUND)
    throw new JobNotFoundError(jobId, { cause: err });
  const noCodec = missingCodecError(err);
  if (noCodec) throw noCodec;
  translateServiceError(err);
}

/**
 * An error of a write whose rollback failed too. No write rolls back any more (a job is written by one
 * call, or not at all: see AlertEvaluatorStartError), so `rollbackError` is never set; the type is kept
 * for code written against earlier versions.
 * @deprecated since the shared alert evaluator (CHANGELOG.md).
 */
export type WriteError = Error & { readonly rollbackError?: unknown };
