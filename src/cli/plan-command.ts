import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { TflowEnv } from '../config';
import { TemporalFlowError } from '../errors';
import { missingCodecError } from '../codec/errors';
import type { PipelineScheduler } from '../client/jobs/pipeline-scheduler';
import type { JobPlan } from '../client/jobs/job-plan-types';
import { DEFAULT_WATCHDOG_TASK_QUEUE } from '../workflows/alerts/watchdog-defs';
import { withConnectionFlags } from './connection';
import { cliScheduler, withClient, withExamples, type SessionFlags } from './command-session';
import { loadJobsFile } from './jobs-file';
import { processRenderContext } from './render/render-context';
import { renderApplied, renderPlan } from './render/plan-render';

/*
 * `tflow plan <file>` and `tflow apply <file>`: jobs as code. Exit codes follow `terraform plan
 * -detailed-exitcode` (0 no changes, 2 changes, 1 error), so CI can tell "nothing to deploy" from a diff.
 */

/** Exit codes of `tflow plan` and `tflow apply` (usage errors included). */
export const PLAN_EXIT_CODES = { noChanges: 0, error: 1, changes: 2 } as const;

/** The commands whose exit codes are {@link PLAN_EXIT_CODES}. */
export const PLAN_COMMANDS: readonly string[] = ['plan', 'apply'];

interface PlanFlags extends SessionFlags {
  prune?: boolean;
  adopt?: boolean;
  yes?: boolean;
  watchdogTaskQueue?: string;
}

/** Runs a plan or apply action: any error is one line and exit code 1. */
async function guarded(fn: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await fn();
  } catch (caught) {
    const err = missingCodecError(caught) ?? caught;
    const message =
      err instanceof TemporalFlowError
        ? err.message
        : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
    console.error(`tflow: ${message}`);
    process.exitCode = PLAN_EXIT_CODES.error;
  }
}

async function planOf(s: PipelineScheduler, file: string, flags: PlanFlags): Promise<JobPlan> {
  const jobs = loadJobsFile(file);
  return s.plan(jobs, { prune: flags.prune === true, adopt: flags.adopt === true });
}

/** Asks on the terminal; only "yes" applies (as Terraform asks). */
async function confirmed(plan: JobPlan): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await rl.question(
      `Apply this plan to namespace "${plan.namespace}"? Only "yes" applies: `,
    );
    return answer.trim() === 'yes';
  } finally {
    rl.close();
  }
}

export function registerPlanCommands(program: Command, env: TflowEnv): void {
  const common = (cmd: Command) =>
    withConnectionFlags(cmd, env)
      .option('--prune', "delete the set's jobs that the file no longer lists")
      .option('--adopt', 'take over jobs of the same ids that temporal-flow created outside any set')
      .option('--json', 'print the plan (and result) as JSON');

  withExamples(
    common(
      program
        .command('plan <file>')
        .description(
          'compare a jobs file (TS/JS module, JSON or YAML) with the namespace: + create, ~ update, - delete, ! blocked, drift; exit 0 no changes, 2 changes, 1 error',
        ),
    ).action(async (file: string, _opts: unknown, cmd: Command) =>
      guarded(async () => {
        const flags = cmd.optsWithGlobals<PlanFlags>();
        const plan = await withClient(env, cmd, (client) => planOf(cliScheduler(client, env), file, flags));
        console.log(
          flags.json ? JSON.stringify(plan, null, 2) : renderPlan(plan, processRenderContext(env)).join('\n'),
        );
        return plan.hasChanges ? PLAN_EXIT_CODES.changes : PLAN_EXIT_CODES.noChanges;
      }),
    ),
    'tflow plan jobs.ts',
    'tflow plan jobs.yaml --prune --json',
  );

  withExamples(
    common(
      program
        .command('apply <file>')
        .description('show the plan of a jobs file, ask (on a terminal), then make the namespace match it')
        .option('-y, --yes', 'apply without asking (CI)')
        .option(
          '--watchdog-task-queue <name>',
          "alert task queue of the jobs apply writes, whose evaluator it starts (the schedulers' watchdogTaskQueue; env TFLOW_WATCHDOG_TASK_QUEUE)",
          env.watchdogTaskQueue ?? DEFAULT_WATCHDOG_TASK_QUEUE,
        ),
    ).action(async (file: string, _opts: unknown, cmd: Command) =>
      guarded(async () => {
        const flags = cmd.optsWithGlobals<PlanFlags>();
        const ctx = processRenderContext(env);
        return withClient(env, cmd, async (client) => {
          const s = cliScheduler(client, env, flags.watchdogTaskQueue);
          const plan = await planOf(s, file, flags);
          if (!flags.json) console.log(renderPlan(plan, ctx).join('\n'));
          if (!plan.hasChanges && plan.summary.blocked === 0) {
            if (flags.json) console.log(JSON.stringify({ plan, applied: null }, null, 2));
            return PLAN_EXIT_CODES.noChanges;
          }
          if (!flags.yes) {
            if (!process.stdin.isTTY || !ctx.isTTY) {
              console.error('tflow: not a terminal, so not asking: pass --yes to apply this plan');
              return PLAN_EXIT_CODES.error;
            }
            if (!(await confirmed(plan))) {
              console.log('Apply cancelled: nothing changed.');
              return PLAN_EXIT_CODES.error;
            }
          }
          const result = await s.apply(plan);
          console.log(
            flags.json
              ? JSON.stringify({ plan, applied: result }, null, 2)
              : renderApplied(result).join('\n'),
          );
          return PLAN_EXIT_CODES.noChanges;
        });
      }),
    ),
    'tflow apply jobs.ts',
    'tflow apply jobs.ts --prune --yes',
  );
}
