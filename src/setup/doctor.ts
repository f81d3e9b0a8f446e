import type { Connection, DataConverter } from '@temporalio/client';
import { connectToTemporal } from '../client/connect';
import { fromWireError } from '../client/errors';
import type { TemporalConnectionOptions } from '../config';
import {
  checkJobParts,
  checkJobAlerts,
  checkJobs,
  checkNamespace,
  checkScheduleStartRate,
  checkSearchAttributes,
  checkWorkers,
  doctorContext,
} from './doctor-checks';
import { checkStepQueues } from './step-queues-check';
import { checkSemaphores, expectedSemaphoreQueue } from './semaphores-check';
import type { CheckId, DoctorCheck, DoctorReport } from './doctor-types';

export interface DoctorOptions {
  /** How to reach the server (address, API key, TLS), as {@link connectionOptions} builds it. */
  connection: TemporalConnectionOptions;
  /** @default 'default' */
  namespace?: string;
  /** Task queue the workers should poll. @default 'pipelines' */
  taskQueue?: string;
  /** Data converter of the jobs' payloads (e.g. `codecDataConverter(codec)` when they are encrypted). */
  dataConverter?: DataConverter;
  /**
   * Repair what jobs are owed (`tflow doctor --repair`): start a missing alert evaluator of a queue the
   * jobs name, send a one-off's owed run. @default false (report only)
   */
  repair?: boolean;
  /**
   * The schedulers' `watchdogTaskQueue`. Jobs name their alert queue in their record, and doctor checks
   * the evaluator of each queue named; accepted for the callers of earlier versions. @default 'tflow-watchdog'
   */
  watchdogTaskQueue?: string;
  /**
   * The semaphore task queue the workers poll (createWorker's `semaphoreTaskQueue`). @default
   * 'tflow-semaphores', or 'tflow-semaphores-codec' when `dataConverter` is given (workers with a codec)
   */
  semaphoreTaskQueue?: string;
}

const ORDER: CheckId[] = [
  'server',
  'namespace',
  'search-attributes',
  'retention',
  'workers',
  'step-queues',
  'semaphores',
  'jobs',
  'job-parts',
  'job-alerts',
  'schedule-start-rate',
];

function skippedAfter(failed: CheckId, done: DoctorCheck[]): DoctorCheck[] {
  const have = new Set(done.map((c) => c.id));
  return ORDER.filter((id) => !have.has(id)).map((id) => ({
    id,
    status: 'skipped' as const,
    summary: `not checked: the ${failed} check failed`,
  }));
}

/**
 * Checks what temporal-flow needs of a server and namespace, and explains each finding with its fix:
 * server reachable and credentials accepted, namespace, search attributes, retention, workers polling the
 * task queue, a worker on each other queue the jobs' steps need (steps served elsewhere), a worker on the
 * semaphore task queue and on the queue of every running semaphore (concurrency keys, maxInstances), jobs whose last run failed or was skipped, an alert queue in use with no evaluator or a one-off's owed run (with
 * `repair`, repaired), jobs whose alerts are not evaluated, and the schedule start rate (not readable: said so). `ok` is false when something
 * blocks runs. What `tflow doctor` runs; never throws for a finding.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const namespace = options.namespace ?? 'default';
  const taskQueue = options.taskQueue ?? 'pipelines';
  const address = options.connection.address;
  const report = (checks: DoctorCheck[]): DoctorReport => ({
    address,
    namespace,
    taskQueue,
    ok: checks.every((c) => c.status !== 'fail'),
    checks,
  });

  let connection: Connection;
  let version: string;
  try {
    connection = await connectToTemporal(options.connection);
    version = (await connection.workflowService.getSystemInfo({})).serverVersion ?? '';
  } catch (err) {
    const known = fromWireError(err, { address });
    // Our errors already say what to do; anything else is shown as the SDK said it.
    const server: DoctorCheck = known
      ? { id: 'server', status: 'fail', summary: known.message }
      : {
          id: 'server',
          status: 'fail',
          summary: (err as Error).message,
          fix: 'check the address and the server',
        };
    return report([server, ...skippedAfter('server', [server])]);
  }
  try {
    const checks: DoctorCheck[] = [
      {
        id: 'server',
        status: 'ok',
        summary: `Temporal ${version || '(version not reported)'} answers at ${address}${options.connection.apiKey || options.connection.tls ? ', credentials accepted' : ''}`,
      },
    ];
    const ctx = doctorContext(connection, namespace, taskQueue, options.dataConverter);
    const ns = await checkNamespace(ctx);
    checks.push(...ns.checks);
    if (!ns.exists) return report([...checks, ...skippedAfter('namespace', checks)]);
    const semaphoreQueue = expectedSemaphoreQueue({
      ...(options.semaphoreTaskQueue !== undefined ? { semaphoreTaskQueue: options.semaphoreTaskQueue } : {}),
      codec: options.dataConverter !== undefined,
    });
    const [attributes, workers, stepQueues, semaphores, jobs, parts, alerts] = await Promise.all([
      checkSearchAttributes(ctx),
      checkWorkers(ctx),
      checkStepQueues(ctx),
      checkSemaphores(ctx, semaphoreQueue),
      checkJobs(ctx),
      checkJobParts(ctx, {
        repair: options.repair ?? false,
        ...(options.watchdogTaskQueue ? { watchdogTaskQueue: options.watchdogTaskQueue } : {}),
      }),
      checkJobAlerts(ctx),
    ]);
    checks.push(attributes, workers, stepQueues, semaphores, jobs, parts, alerts, checkScheduleStartRate());
    checks.sort((a, b) => ORDER.indexOf(a.id) - ORDER.indexOf(b.id));
    return report(checks);
  } finally {
    await connection.close();
  }
}
