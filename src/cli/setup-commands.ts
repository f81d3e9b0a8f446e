import type { Command } from 'commander';
import { codecDataConverter } from '../codec/data-converter';
import { connectionOptions, payloadCodecFromEnv, type TflowEnv } from '../config';
import { runDoctor } from '../setup/doctor';
import { DEFAULT_WATCHDOG_TASK_QUEUE } from '../workflows/alerts/watchdog-defs';
import type { DoctorReport } from '../setup/doctor-types';
import { formatRetention } from '../setup/retention';
import { setupNamespace, type SetupReport } from '../setup/setup-namespace';
import { DEFAULT_ADDRESS, withConnection, withConnectionFlags, type ConnectionFlags } from './connection';

function setupLines(address: string, r: SetupReport): string[] {
  const lines = [`namespace "${r.namespace}" on ${address}:`];
  if (r.registered.length > 0) {
    const types = new Map(r.searchAttributes.map((a) => [a.name, a.actual]));
    lines.push(
      `  registered search attributes: ${r.registered.map((n) => `${n} (${types.get(n) ?? '?'})`).join(', ')}`,
    );
  }
  const show = (ms: number | undefined) => (ms === undefined ? 'none reported' : formatRetention(ms));
  if (r.retention.changed)
    lines.push(`  retention: ${show(r.retention.beforeMs)} -> ${show(r.retention.afterMs)}`);
  if (!r.changed) {
    lines.push(
      `  nothing to change: search attributes ${r.searchAttributes.map((a) => a.name).join(', ')} present, retention ${show(r.retention.afterMs)}`,
    );
  }
  for (const w of r.warnings) lines.push(`  warning: ${w}`);
  return lines;
}

const LABEL = { ok: 'ok', warn: 'WARN', fail: 'FAIL', unknown: '?', skipped: '-' } as const;

function doctorLines(r: DoctorReport): string[] {
  const lines = [`tflow doctor: ${r.address}, namespace "${r.namespace}", task queue "${r.taskQueue}"`];
  const width = Math.max(...r.checks.map((c) => c.id.length));
  for (const c of r.checks) {
    lines.push(`  ${LABEL[c.status].padEnd(4)}  ${c.id.padEnd(width)}  ${c.summary}`);
    if (c.fix) lines.push(`  ${''.padEnd(4)}  ${''.padEnd(width)}  fix: ${c.fix}`);
  }
  const warns = r.checks.filter((c) => c.status === 'warn').length;
  lines.push(
    !r.ok
      ? 'Runs are blocked: fix the FAIL lines above.'
      : warns > 0
        ? `Runs can start; ${warns} warning${warns === 1 ? '' : 's'} above.`
        : 'All clear.',
  );
  return lines;
}

/** `tflow setup` and `tflow doctor`: prepare a namespace for temporal-flow, and check it. */
export function registerSetupCommands(program: Command, env: TflowEnv): void {
  withConnectionFlags(
    program
      .command('setup')
      .description(
        "register temporal-flow's search attributes in the namespace (idempotent) and set its retention when asked",
      ),
    env,
  )
    .option(
      '--retention <duration>',
      'keep closed runs this long, e.g. 30d (default: leave it, warn under 7 days)',
    )
    .option('--json', 'print JSON')
    .action(async (opts: ConnectionFlags & { retention?: string; json?: boolean }) => {
      const report = await withConnection(env, opts, (connection, namespace) =>
        setupNamespace(connection, {
          namespace,
          ...(opts.retention !== undefined ? { retention: opts.retention } : {}),
        }),
      );
      const address = opts.address ?? DEFAULT_ADDRESS;
      console.log(opts.json ? JSON.stringify(report, null, 2) : setupLines(address, report).join('\n'));
    });

  withConnectionFlags(
    program
      .command('doctor')
      .description(
        'check the server, namespace, search attributes, retention, workers and jobs, and say how to fix what is wrong (exit 1 when runs are blocked)',
      ),
    env,
  )
    .option('--task-queue <name>', 'task queue the workers should poll', env.taskQueue)
    .option(
      '--repair',
      "repair what jobs are owed (start a missing alert evaluator, send a one-off's owed run)",
    )
    .option(
      '--watchdog-task-queue <name>',
      "the schedulers' alert task queue (watchdogTaskQueue; env TFLOW_WATCHDOG_TASK_QUEUE); doctor checks the evaluator of each queue the jobs name, so this only says which one a job written before it names",
      env.watchdogTaskQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE,
    )
    .option(
      '--semaphore-task-queue <name>',
      "the semaphore task queue the workers poll (createWorker's semaphoreTaskQueue; default tflow-semaphores, tflow-semaphores-codec with TFLOW_CODEC_KEYS); doctor also checks the queue of every running semaphore",
    )
    .option('--json', 'print JSON')
    .action(
      async (
        opts: ConnectionFlags & {
          taskQueue: string;
          repair?: boolean;
          watchdogTaskQueue: string;
          semaphoreTaskQueue?: string;
          json?: boolean;
        },
      ) => {
        const codec = payloadCodecFromEnv(env); // TFLOW_CODEC_KEYS: the jobs' payloads are encrypted
        const report = await runDoctor({
          connection: connectionOptions(env, opts.address ?? DEFAULT_ADDRESS),
          namespace: opts.namespace ?? env.namespace,
          taskQueue: opts.taskQueue,
          repair: opts.repair ?? false,
          watchdogTaskQueue: opts.watchdogTaskQueue,
          ...(opts.semaphoreTaskQueue !== undefined ? { semaphoreTaskQueue: opts.semaphoreTaskQueue } : {}),
          ...(codec ? { dataConverter: codecDataConverter(codec) } : {}),
        });
        console.log(opts.json ? JSON.stringify(report, null, 2) : doctorLines(report).join('\n'));
        if (!report.ok) process.exitCode = 1;
      },
    );
}
