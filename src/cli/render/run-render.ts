import type { JobRun } from '../../client/run-types';
import type { RunDescription, RunStep } from '../../client/run-describe';
import { durationInWords } from '../../schedule/trigger-words';
import { paint, paintStatus, type RenderContext } from './render-context';
import { renderTable } from './table';
import { localTime, whenInWords } from './time-words';

/*
 * Runs for people (tables, the `tflow runs show` card) and for scripts (the tab-separated lines `tflow
 * jobs history` has always printed when piped). `--json` never comes here.
 */

/** Headers of {@link runRows}. */
export const RUN_HEADERS = ['STARTED', 'STATUS', 'DUE', 'DURATION', 'WORKFLOW ID', 'ERROR'];

function statusOf(run: JobRun): string {
  return run.skipReason ? `skipped (${run.skipReason})` : run.status;
}

/** A run's tab-separated line, as scripts read it (unchanged since 0.1). */
export function runLine(run: JobRun): string[] {
  return [
    run.startedAt.toISOString(),
    statusOf(run),
    (run.scheduledAt ? `due ${run.scheduledAt.toISOString()}` : 'due -') +
      (run.standsFor ? ` (stood for ${run.standsFor.toISOString()})` : '') +
      (run.judgedAt ? ` (judged at ${run.judgedAt.toISOString()})` : ''),
    run.durationMs !== undefined ? `${run.durationMs} ms` : '-',
    run.workflowId,
    run.failure ?? '',
  ];
}

/** When a scheduled run was due, and the occurrence it stood for or the instant it was judged at. */
function dueOf(run: JobRun, zone: string): string {
  if (!run.scheduledAt) return '-';
  return (
    localTime(run.scheduledAt, zone) +
    (run.standsFor ? ` (stood for ${localTime(run.standsFor, zone)})` : '') +
    (run.judgedAt ? ` (judged at ${localTime(run.judgedAt, zone)})` : '')
  );
}

/** Rows under {@link RUN_HEADERS}: times in `ctx.zone`, colored status, the error cut to one line. */
export function runRows(runs: JobRun[], ctx: RenderContext): string[][] {
  const p = paint(ctx);
  return runs.map((run) => [
    whenInWords(run.startedAt, ctx.zone, ctx.now),
    paintStatus(statusOf(run), p),
    dueOf(run, ctx.zone),
    run.durationMs !== undefined ? durationInWords(run.durationMs) : '-',
    run.workflowId,
    oneLine(run.failure ?? ''),
  ]);
}

function oneLine(s: string, max = 80): string {
  const line = s.split('\n')[0]!;
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** `tflow runs`, `tflow jobs history`, `tflow dead-letters`: a table on a terminal, tab-separated lines elsewhere. */
export function renderRunList(
  runs: JobRun[],
  ctx: RenderContext,
  opts: { empty: string; withJob?: boolean },
): string[] {
  if (runs.length === 0) return [opts.empty];
  if (!ctx.isTTY) return renderTable([], runs.map(runLine), ctx);
  if (!opts.withJob) return renderTable(RUN_HEADERS, runRows(runs, ctx), ctx);
  const rows = runRows(runs, ctx);
  return renderTable(
    ['STARTED', 'STATUS', 'PIPELINE', 'JOB', 'DUE', 'DURATION', 'WORKFLOW ID', 'ERROR'],
    rows.map((r, i) => [r[0]!, r[1]!, runs[i]!.pipeline ?? '-', runs[i]!.jobId ?? '-', ...r.slice(2)]),
    { ...ctx, isTTY: true },
  );
}

function stepRows(steps: RunStep[], ctx: RenderContext): string[][] {
  const p = paint(ctx);
  return steps.map((s) => [
    s.id,
    s.activity,
    paintStatus(s.status, p),
    s.attempts !== undefined ? String(s.attempts) : '-',
    s.durationMs !== undefined ? durationInWords(s.durationMs) : '-',
    s.error ? oneLine(`${s.errorType ? `${s.errorType}: ` : ''}${s.error}`) : '',
  ]);
}

const STEP_HEADERS = ['STEP', 'ACTIVITY', 'STATUS', 'ATTEMPTS', 'DURATION', 'ERROR'];

function section(title: string, steps: RunStep[], ctx: RenderContext): string[] {
  if (steps.length === 0) return [];
  const p = paint(ctx);
  return [
    '',
    `  ${p.bold(title)}`,
    ...renderTable(STEP_HEADERS, stepRows(steps, ctx), { ...ctx, isTTY: true }).map((l) => `    ${l}`),
  ];
}

/** `tflow runs show`: the run as a card, its steps, compensations and hooks as tables, and what to do next. */
export function renderRunCard(run: RunDescription, ctx: RenderContext): string[] {
  const p = paint(ctx);
  const label = (s: string) => p.dim(s.padEnd(9));
  const lines = [
    `${p.bold(run.workflowId)}  ${paintStatus(statusOf(run), p)}`,
    `  ${label('Pipeline')}  ${run.pipeline ?? '-'}${run.jobId ? `  (job ${run.jobId})` : ''}`,
    `  ${label('Started')}  ${whenInWords(run.startedAt, ctx.zone, ctx.now)}`,
  ];
  if (run.scheduledAt) lines.push(`  ${label('Due')}  ${localTime(run.scheduledAt, ctx.zone)}`);
  if (run.closedAt) {
    lines.push(
      `  ${label('Closed')}  ${whenInWords(run.closedAt, ctx.zone, ctx.now)}, after ${durationInWords(run.durationMs ?? 0)}`,
    );
  }
  if (run.redriveOf) {
    lines.push(`  ${label('Redrives')}  ${run.redriveOf.workflowId}, from step ${run.redriveOf.fromStep}`);
  }
  lines.push(`  ${label('Run id')}  ${run.runId}`);
  const d = run.failureDetails;
  if (d) {
    const attempts =
      d.attempts !== undefined ? ` after ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}` : '';
    lines.push(
      `  ${label('Failed')}  ${p.red(`step ${d.failedStep}${attempts}: ${d.errorType ? `${d.errorType}: ` : ''}${d.message}`)}`,
    );
    if (d.timedOut) lines.push(`  ${label('')}  ${p.red('the whole-run timeout stopped it')}`);
  } else if (run.failure) {
    lines.push(`  ${label('Failed')}  ${p.red(run.failure)}`);
  }
  lines.push(...section('Steps', run.steps, ctx));
  lines.push(...section('Compensations', run.compensations, ctx));
  lines.push(...section('Hooks', run.hooks, ctx));
  if (run.steps.length === 0 && run.skipReason)
    lines.push('', `  no step ran: the run skipped itself (${run.skipReason})`);
  if (d?.failedNode) {
    const from = Object.keys(d.nodeInputs ?? {});
    lines.push(
      '',
      `  Redrive from the failed step:  tflow dead-letters redrive ${run.workflowId}`,
      ...(from.length > 1 ? [`  or from an earlier one:         --from ${from.join(' | ')}`] : []),
    );
  }
  lines.push(`  ${p.dim(`times in ${ctx.zone}`)}`);
  return lines;
}
