import type { ApplyResult, JobPlan, PlannedJob } from '../../client/jobs/job-plan-types';
import type { FieldChange } from '../../client/jobs/job-view';
import { paint, type Paint, type RenderContext } from './render-context';

/*
 * A plan as people read Terraform's: `+` create, `~` update with `old -> new` per field, `-` delete,
 * `!` blocked, drift marked under the job it touches, then one summary line. The same text on a terminal
 * (coloured) and in a pipe (a CI log, a pull-request comment).
 */

const SIGNS = { create: '+', update: '~', delete: '-', blocked: '!', unchanged: ' ' } as const;

function signOf(job: PlannedJob, p: Paint): string {
  const sign = SIGNS[job.action];
  if (job.action === 'create') return p.green(sign);
  if (job.action === 'update') return p.yellow(sign);
  if (job.action === 'delete') return p.red(sign);
  if (job.action === 'blocked') return p.magenta(sign);
  return sign;
}

/** A create shows the values set; `none` (nothing set) is left out. */
const shownOnCreate = (c: FieldChange) => c.to !== 'none';

function changeLine(c: FieldChange, action: PlannedJob['action'], p: Paint): string {
  if (action === 'create') return `${c.field}: ${p.green(c.to ?? '')}`;
  if (action === 'delete') return `${c.field}: ${p.red(c.from ?? '')}`;
  const from = c.from ?? '(not set)';
  return `${c.field}: ${p.red(from)} -> ${p.green(c.to ?? '')}`;
}

function jobLines(job: PlannedJob, p: Paint): string[] {
  const head = `  ${signOf(job, p)} ${p.bold(job.jobId)}${job.pipeline ? ` (${job.pipeline})` : ''}`;
  const lines = [job.drift ? `${head} ${p.magenta('[drift]')}` : head];
  if (job.blocked) {
    lines.push(`      ${p.magenta(job.blocked.message)}`);
    return lines;
  }
  const changes = job.action === 'create' ? job.changes.filter(shownOnCreate) : job.changes;
  const shown =
    job.action === 'delete'
      ? changes.filter((c) => c.field === 'trigger' || c.field === 'timezone')
      : changes;
  for (const c of shown) lines.push(`      ${changeLine(c, job.action, p)}`);
  if (job.drift) {
    lines.push(
      `      ${p.magenta("drift: edited outside temporal-flow since the last apply (apply writes the file's values back):")}`,
    );
    for (const c of job.drift) {
      lines.push(`        ${c.field}: ${c.from ?? '(not recorded)'} -> ${p.magenta(c.to ?? '')} (outside)`);
    }
  }
  for (const k of job.kept ?? []) lines.push(`      ${p.dim(`kept: ${k}`)}`);
  return lines;
}

/** The plan, job by job (unchanged jobs only counted, unless they carry a note), and a summary line. */
export function renderPlan(plan: JobPlan, ctx: Pick<RenderContext, 'color'>): string[] {
  const p = paint(ctx);
  const lines = [
    `Plan for set "${plan.set}" in namespace "${plan.namespace}"${plan.prune ? ' (with prune)' : ''}:`,
    '',
  ];
  const listed = plan.jobs.filter((j) => j.action !== 'unchanged' || (j.kept?.length ?? 0) > 0);
  for (const job of listed) lines.push(...jobLines(job, p));
  if (listed.length > 0) lines.push('');
  const s = plan.summary;
  if (!plan.hasChanges && s.blocked === 0) {
    lines.push(
      `No changes: the namespace matches the file (${s.unchanged} job${s.unchanged === 1 ? '' : 's'}).`,
    );
  } else {
    lines.push(
      `Plan: ${s.create} to create, ${s.update} to update, ${s.delete} to delete, ${s.unchanged} unchanged, ${s.blocked} blocked.`,
    );
  }
  if (!plan.prune && s.delete === 0) {
    // Nothing says whether jobs were removed from the file: only a plan with prune looks.
    lines.push(p.dim('Jobs removed from the file are deleted only with --prune.'));
  }
  return lines;
}

/** What apply did, one line per action taken. */
export function renderApplied(result: ApplyResult): string[] {
  const line = (verb: string, ids: readonly string[]) =>
    ids.length > 0 ? [`${verb}: ${ids.join(', ')}`] : [];
  const lines = [
    ...line('created', result.created),
    ...line('updated', result.updated),
    ...line('deleted', result.deleted),
  ];
  const total = result.created.length + result.updated.length + result.deleted.length;
  lines.push(
    `Apply complete: ${result.created.length} created, ${result.updated.length} updated, ${result.deleted.length} deleted${total === 0 ? ' (nothing to do)' : ''}.`,
  );
  return lines;
}
