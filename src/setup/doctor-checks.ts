import { Client, type Connection, type DataConverter } from '@temporalio/client';
import { optionalTsToMs, tsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import { PipelineScheduler } from '../client/jobs/pipeline-scheduler';
import { GrpcStatus, grpcStatusOf } from '../client/errors';
import type { JobRun } from '../client/runs/run-types';
import type { JobSummary } from '../client/jobs/job-types';
import { inLanes } from '../client/in-lanes';
import { findJobDisagreements, repairJobDisagreement } from '../client/jobs/job-repair';
import { findJobAlertProblems } from '../client/jobs/job-alert-health';
import type { DoctorCheck } from './doctor-types';
import { formatRetention, RECOMMENDED_RETENTION_MS } from './retention';
import { readSearchAttributes } from './search-attributes';
import { RETENTION_FIX, shortRetentionFinding } from './setup-namespace';

/*
 * The checks of `tflow doctor` after the server answered, one function each. Each returns a check and
 * never throws: what it cannot read it reports as `unknown`, with why.
 */

const TaskQueueType = temporal.api.enums.v1.TaskQueueType;

/** A poller seen longer ago than this has stopped: live pollers come back at least once a long poll (~70 s). */
const POLLER_FRESH_MS = 2 * 60_000;
/** Jobs whose last run the doctor reads at once: enough to be quick, few enough not to load the server. */
const HISTORY_CONCURRENCY = 8;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0]!;

/** What every check of one doctor run reads through: built once by {@link runDoctor}, handed to each check. */
export interface DoctorContext {
  connection: Connection;
  namespace: string;
  /** Task queue the workers should poll. */
  taskQueue: string;
  /** A client of the namespace, with the jobs' data converter (built on first use, then shared). */
  client(): Client;
  /** The namespace's temporal-flow jobs (not foreign schedules): listed on first use, then shared. */
  ourJobs(): Promise<{ scheduler: PipelineScheduler; jobs: JobSummary[] }>;
}

/** The context of one doctor run; nothing is read from the server until a check asks. */
export function doctorContext(
  connection: Connection,
  namespace: string,
  taskQueue: string,
  dataConverter?: DataConverter,
): DoctorContext {
  let client: Client | undefined;
  let listing: Promise<{ scheduler: PipelineScheduler; jobs: JobSummary[] }> | undefined;
  const ctx: DoctorContext = {
    connection,
    namespace,
    taskQueue,
    client: () =>
      (client ??= new Client({ connection, namespace, ...(dataConverter ? { dataConverter } : {}) })),
    ourJobs: () =>
      (listing ??= (async () => {
        const scheduler = new PipelineScheduler(ctx.client(), { taskQueue });
        const jobs = (await scheduler.listJobs({ includeForeign: false })).filter((j) => !j.foreign);
        return { scheduler, jobs };
      })()),
  };
  return ctx;
}

export async function checkNamespace({
  connection,
  namespace,
}: DoctorContext): Promise<{ checks: DoctorCheck[]; exists: boolean }> {
  let retentionMs: number | undefined;
  try {
    const ns = await connection.workflowService.describeNamespace({ namespace });
    retentionMs = optionalTsToMs(ns.config?.workflowExecutionRetentionTtl);
  } catch (err) {
    const notFound = grpcStatusOf(err) === GrpcStatus.NOT_FOUND;
    return {
      exists: false,
      checks: [
        {
          id: 'namespace',
          status: 'fail',
          summary: notFound
            ? `namespace "${namespace}" does not exist`
            : `namespace "${namespace}" cannot be read: ${message(err)}`,
          fix: notFound
            ? `create it (\`temporal operator namespace create --namespace ${namespace} --retention 30d\`) or set TEMPORAL_NAMESPACE to an existing one`
            : 'check that the API key or certificate is for this namespace',
        },
      ],
    };
  }
  const retention: DoctorCheck =
    retentionMs === undefined
      ? { id: 'retention', status: 'unknown', summary: 'the server reports no retention for the namespace' }
      : retentionMs < RECOMMENDED_RETENTION_MS
        ? {
            id: 'retention',
            status: 'warn',
            summary: shortRetentionFinding(namespace, retentionMs),
            fix: RETENTION_FIX,
          }
        : {
            id: 'retention',
            status: 'ok',
            summary: `closed runs are kept ${formatRetention(retentionMs)} (history, dead letters, redrive)`,
          };
  return {
    exists: true,
    checks: [{ id: 'namespace', status: 'ok', summary: `namespace "${namespace}" exists` }, retention],
  };
}

export async function checkSearchAttributes({ connection, namespace }: DoctorContext): Promise<DoctorCheck> {
  try {
    const found = await readSearchAttributes(connection, namespace);
    const missing = found.filter((a) => a.actual === undefined);
    const wrong = found.filter((a) => a.actual !== undefined && a.actual !== a.expected);
    if (wrong.length > 0) {
      return {
        id: 'search-attributes',
        status: 'fail',
        summary: wrong.map((a) => `${a.name} is ${a.actual}, temporal-flow needs ${a.expected}`).join('; '),
        fix: `remove them (\`temporal operator search-attribute remove --namespace ${namespace} --name <name>\`) if nothing else uses them, then run \`npx tflow setup\`; or use another namespace`,
      };
    }
    if (missing.length > 0) {
      return {
        id: 'search-attributes',
        status: 'fail',
        summary: `missing: ${missing.map((a) => a.name).join(', ')}; every run and job start fails until they exist`,
        fix: 'npx tflow setup',
      };
    }
    return {
      id: 'search-attributes',
      status: 'ok',
      summary: found.map((a) => `${a.name} (${a.actual})`).join(', '),
    };
  } catch (err) {
    return { id: 'search-attributes', status: 'unknown', summary: `cannot list them: ${message(err)}` };
  }
}

/** Identities of the pollers of a task queue seen in the last {@link POLLER_FRESH_MS}. */
export async function livePollers(
  connection: Connection,
  namespace: string,
  taskQueue: string,
  type: temporal.api.enums.v1.TaskQueueType,
): Promise<string[]> {
  const now = Date.now();
  const d = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: type,
  });
  return (d.pollers ?? [])
    .filter((p) => p.lastAccessTime && now - tsToMs(p.lastAccessTime) < POLLER_FRESH_MS)
    .map((p) => p.identity ?? '?');
}

export async function checkWorkers({
  connection,
  namespace,
  taskQueue,
}: DoctorContext): Promise<DoctorCheck> {
  const live = (type: temporal.api.enums.v1.TaskQueueType) =>
    livePollers(connection, namespace, taskQueue, type);
  try {
    const [workflowPollers, activityPollers] = await Promise.all([
      live(TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW),
      live(TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY),
    ]);
    if (workflowPollers.length === 0 || activityPollers.length === 0) {
      return {
        id: 'workers',
        status: 'fail',
        summary: `no worker polls task queue "${taskQueue}" for ${workflowPollers.length === 0 ? 'workflows' : 'steps (activities)'} in the last 2 minutes: runs wait, and scheduled runs pile up`,
        fix: `start a worker (createWorker({ taskQueue: '${taskQueue}', ... })), or pass the task queue your workers use (--task-queue, TFLOW_TASK_QUEUE)`,
      };
    }
    const identities = [...new Set([...workflowPollers, ...activityPollers])];
    return {
      id: 'workers',
      status: 'ok',
      summary:
        `${identities.length} worker${identities.length === 1 ? '' : 's'} polling "${taskQueue}": ${identities.join(', ')}. ` +
        'Which steps they register cannot be checked: Temporal does not report the activities a worker has',
    };
  } catch (err) {
    return {
      id: 'workers',
      status: 'unknown',
      summary: `cannot describe task queue "${taskQueue}": ${message(err)}`,
    };
  }
}

/** The newest run of a job that has ended (a run in flight says nothing yet). */
function lastEnded(runs: JobRun[]): JobRun | undefined {
  return runs.find((r) => r.status !== 'running');
}

export async function checkJobs(ctx: DoctorContext): Promise<DoctorCheck> {
  try {
    const { scheduler, jobs } = await ctx.ourJobs();
    const bad: string[] = [];
    await inLanes(jobs, HISTORY_CONCURRENCY, async (job) => {
      const run = lastEnded(await scheduler.getHistory(job.id, { limit: 5 }));
      if (run?.status === 'failed') bad.push(`${job.id} (failed${run.failure ? `: ${run.failure}` : ''})`);
      else if (run?.status === 'skipped') bad.push(`${job.id} (skipped: ${run.skipReason ?? '?'})`);
    });
    if (bad.length === 0) {
      return {
        id: 'jobs',
        status: 'ok',
        summary: `${jobs.length} job${jobs.length === 1 ? '' : 's'}, none whose last run failed or was skipped`,
      };
    }
    return {
      id: 'jobs',
      status: 'warn',
      summary: `last run failed or was skipped: ${bad.sort().join('; ')}`,
      fix: '`npx tflow jobs history <jobId>` shows the runs; dead letters can be redriven (docs/pipelines.md)',
    };
  } catch (err) {
    return { id: 'jobs', status: 'unknown', summary: `cannot read the jobs: ${message(err)}` };
  }
}

/**
 * What jobs are owed beyond their schedules (see client/jobs/job-repair.ts): a running alert evaluator for
 * each alert queue their alerts use, a one-off's run at once; with `repair`, each is repaired with the
 * writers' own idempotent call.
 */
export async function checkJobParts(
  ctx: DoctorContext,
  opts: { repair: boolean; watchdogTaskQueue?: string },
): Promise<DoctorCheck> {
  try {
    const client = ctx.client();
    const found = await findJobDisagreements(client);
    if (found.length === 0) {
      return {
        id: 'job-parts',
        status: 'ok',
        summary: 'every job has what it needs: an alert evaluator for each alert queue in use, no run owed',
      };
    }
    const listed = found.map((f) => `${f.kind} ${f.jobId}`).join('; ');
    if (!opts.repair) {
      return {
        id: 'job-parts',
        status: 'warn',
        summary: `${found.length} thing${found.length === 1 ? '' : 's'} owed to jobs: ${found.map((f) => f.summary).join('; ')}`,
        fix: 'start an alert worker (createWatchdogWorker) on each queue named, or `npx tflow doctor --repair` (starts the evaluators; an alert worker must still poll the queue)',
      };
    }
    const failed: string[] = [];
    for (const f of found) {
      try {
        await repairJobDisagreement(client, f);
      } catch (err) {
        failed.push(`${f.kind} ${f.jobId}: ${message(err)}`);
      }
    }
    if (failed.length === 0) {
      return { id: 'job-parts', status: 'ok', summary: `repaired ${found.length}: ${listed}` };
    }
    return {
      id: 'job-parts',
      status: 'warn',
      summary: `repaired ${found.length - failed.length} of ${found.length}; not repaired: ${failed.join('; ')}`,
      fix: 'check the server, then run `npx tflow doctor --repair` again',
    };
  } catch (err) {
    return { id: 'job-parts', status: 'unknown', summary: `cannot compare the jobs' parts: ${message(err)}` };
  }
}

/**
 * Jobs whose alerts are not evaluated: targets lost to an outside edit, an alert evaluator that keeps failing to
 * read its job (fail), and jobs this client cannot read to judge (warn). See client/jobs/job-alert-health.ts.
 */
export async function checkJobAlerts(ctx: DoctorContext): Promise<DoctorCheck> {
  try {
    const found = await findJobAlertProblems(ctx.client());
    if (found.length === 0) {
      return { id: 'job-alerts', status: 'ok', summary: "every job's alerts are evaluated" };
    }
    const failing = found.filter((f) => f.kind !== 'unreadable');
    const fixes = [
      failing.some((f) => f.kind === 'alerts-lost') &&
        "set the lost targets again: `modifyJob(jobId, { onSilent, expectSuccessWithin })` (or apply the job's file); give the schedulers a codec so that outside edits keep webhook targets",
      found.some((f) => f.kind !== 'alerts-lost') &&
        'give the alert worker (createWatchdogWorker; and this tflow: TFLOW_CODEC_KEYS) the codec keys the writers use, and check its logs for the failing read',
    ].filter(Boolean);
    return {
      id: 'job-alerts',
      status: failing.length > 0 ? 'fail' : 'warn',
      summary: `${found.length} job${found.length === 1 ? '' : 's'} whose alerts are not evaluated here: ${found.map((f) => f.summary).join('; ')}`,
      fix: fixes.join('; '),
    };
  } catch (err) {
    return { id: 'job-alerts', status: 'unknown', summary: `cannot read the jobs' alerts: ${message(err)}` };
  }
}

/** Temporal has no API that reads the server's dynamic config: say so, with what the setting is. */
export function checkScheduleStartRate(): DoctorCheck {
  return {
    id: 'schedule-start-rate',
    status: 'unknown',
    summary:
      "not readable: Temporal offers no API to read the server's dynamic config. The setting is " +
      "`worker.schedulerNamespaceStartWorkflowRPS` (Temporal's default 30 starts/s per namespace; the embedded " +
      'server of `npm start` and `tflow dev` sets 1000, TFLOW_SCHEDULE_START_RPS); a burst of N jobs due at once takes about N/rate seconds to start',
    fix: "if many jobs share a due time, raise it in the server's dynamic config (docs/operations.md)",
  };
}
