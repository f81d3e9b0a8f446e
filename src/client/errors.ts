import {
  isGrpcServiceError,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
  ServiceError,
} from '@temporalio/client';
import { TemporalFlowError } from '../errors';

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
          ? '; TLS is on (TEMPORAL_API_KEY or TEMPORAL_TLS_CERT is set), and a server without TLS does not answer it'
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
        'TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY, and that they are for this namespace',
      options,
    );
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
const GrpcStatus = { INVALID_ARGUMENT: 3, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

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
  if (isGrpcServiceError(grpc)) {
    const code: number = grpc.code;
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
  translateServiceError(err);
}
