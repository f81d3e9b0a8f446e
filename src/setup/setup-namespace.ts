import type { Connection } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import { msToTs, optionalTsToMs } from '@temporalio/common/lib/time';
import { fromWireError, GrpcStatus, grpcStatusOf } from '../client/errors';
import { NamespaceNotFoundError, SearchAttributeTypeError, SetupNotPermittedError } from './errors';
import { formatRetention, parseRetention, RECOMMENDED_RETENTION_MS } from './retention';
import { addSearchAttributes, readSearchAttributes, type SearchAttributeStatus } from './search-attributes';

/** gRPC codes of a server that refuses a change on principle (Temporal Cloud, restricted clusters). */

export interface SetupNamespaceOptions {
  /** @default 'default' */
  namespace?: string;
  /**
   * Retention of closed runs (`'30d'`): set when given. When not given, the namespace's retention is left
   * alone, with a warning in the report when it is under 7 days.
   */
  retention?: Duration;
}

/** What {@link setupNamespace} found and changed. */
export interface SetupReport {
  namespace: string;
  /** Search attributes this call registered (empty when all were there). */
  registered: string[];
  /** temporal-flow's search attributes as the namespace now has them. */
  searchAttributes: SearchAttributeStatus[];
  /** Retention before the call, and after it, in ms (`undefined`: the server reports none). */
  retention: { beforeMs: number | undefined; afterMs: number | undefined; changed: boolean };
  /** Things left alone that deserve a look (a short retention). */
  warnings: string[];
  /** Whether the call changed anything. */
  changed: boolean;
}

/** Temporal Cloud and locked-down clusters refuse operator calls with one of these. */
function refused(err: unknown): boolean {
  const code = grpcStatusOf(err);
  return code === GrpcStatus.PERMISSION_DENIED || code === GrpcStatus.UNIMPLEMENTED;
}

async function readRetentionMs(connection: Connection, namespace: string): Promise<number | undefined> {
  try {
    const ns = await connection.workflowService.describeNamespace({ namespace });
    return optionalTsToMs(ns.config?.workflowExecutionRetentionTtl);
  } catch (err) {
    if (grpcStatusOf(err) === GrpcStatus.NOT_FOUND)
      throw new NamespaceNotFoundError(namespace, { cause: err });
    throw fromWireError(err, {}) ?? err;
  }
}

/**
 * Prepares a namespace for temporal-flow, idempotently: registers the search attributes it lacks
 * (`TflowPipeline`, `TflowOutcome`, `TflowJob`, `TflowAlerts`, `TflowSet`, `TflowAlertsAt`) and sets the retention when asked. Everything is checked
 * before anything changes. What `tflow setup` runs.
 *
 * ```ts
 * const report = await setupNamespace(connection, { namespace: 'default', retention: '30d' });
 * console.log(report.registered, report.warnings);
 * ```
 *
 * @throws NamespaceNotFoundError when the namespace does not exist.
 * @throws SearchAttributeTypeError when one of the names exists with another type (nothing is changed).
 * @throws InvalidRetentionError for a retention that is not a duration of one day or more.
 * @throws SetupNotPermittedError when the server refuses the change (Temporal Cloud: use its UI or `tcld`).
 */
export async function setupNamespace(
  connection: Connection,
  options: SetupNamespaceOptions = {},
): Promise<SetupReport> {
  const namespace = options.namespace ?? 'default';
  const wantMs = options.retention === undefined ? undefined : parseRetention(options.retention);
  const beforeMs = await readRetentionMs(connection, namespace);
  const before = await readSearchAttributes(connection, namespace);
  const wrong = before.find((a) => a.actual !== undefined && a.actual !== a.expected);
  if (wrong) throw new SearchAttributeTypeError(wrong.name, namespace, wrong.expected, wrong.actual!);

  const missing = before.filter((a) => a.actual === undefined);
  if (missing.length > 0) {
    try {
      await addSearchAttributes(connection, namespace, missing);
    } catch (err) {
      if (!refused(err)) throw fromWireError(err) ?? err;
      throw new SetupNotPermittedError(
        namespace,
        `register the search attributes yourself (Temporal Cloud: its UI or \`tcld namespace search-attributes add\`): ${missing
          .map((a) => `${a.name} (${a.expected})`)
          .join(', ')}`,
        { cause: err },
      );
    }
  }

  let afterMs = beforeMs;
  if (wantMs !== undefined && wantMs !== beforeMs) {
    try {
      await connection.workflowService.updateNamespace({
        namespace,
        config: { workflowExecutionRetentionTtl: msToTs(wantMs) },
      });
    } catch (err) {
      if (!refused(err)) throw fromWireError(err) ?? err;
      throw new SetupNotPermittedError(
        namespace,
        `set its retention to ${formatRetention(wantMs)} yourself (Temporal Cloud: its UI or \`tcld namespace retention set\`)`,
        { cause: err },
      );
    }
    afterMs = await readRetentionMs(connection, namespace);
  }

  const warnings: string[] = [];
  if (wantMs === undefined && beforeMs !== undefined && beforeMs < RECOMMENDED_RETENTION_MS) {
    warnings.push(
      `${shortRetentionFinding(namespace, beforeMs)}. Keep them longer with \`${RETENTION_FIX}\``,
    );
  }
  return {
    namespace,
    registered: missing.map((a) => a.name),
    searchAttributes: missing.length > 0 ? await readSearchAttributes(connection, namespace) : before,
    retention: { beforeMs, afterMs, changed: afterMs !== beforeMs },
    warnings,
    changed: missing.length > 0 || afterMs !== beforeMs,
  };
}

/** The command that keeps closed runs longer. */
export const RETENTION_FIX = 'npx tflow setup --retention 30d';

/** What a retention under 7 days means: what expires, and when. */
export function shortRetentionFinding(namespace: string, retentionMs: number): string {
  return (
    `namespace "${namespace}" keeps closed runs ${formatRetention(retentionMs)}: their history, dead letters ` +
    'and redrive are gone after that'
  );
}
