import type { JobDescription, JobSummary } from '../../client/job-types';
import type { JobRun } from '../../client/run-types';
import type { DstWarning } from '../../schedule/dst';
import { InvalidTriggerError } from '../../schedule/errors';
import { triggerInWords } from '../../schedule/trigger-words';
import { paint, paintStatus, type RenderContext } from './render-context';
import { renderTable } from './table';
import { localTime, whenInWords } from './time-words';
import { runRows, RUN_HEADERS } from './run-render';

/*
 * Jobs for people (a table, a card) and for scripts (the tab-separated lines `tflow jobs list` has always
 * printed when piped). `--json` never comes here.
 */

/** The trigger as stored, in one line: `cron 0 2 * * * (Europe/Paris)`. */
function triggerAsGiven(job: JobSummary): string {
  if (job.foreign) return `(foreign: ${job.workflowType ?? 'unknown action'})`;
  const t = job.trigger as Record<string, unknown>;
  const what = Object.entries(t)
    .filter(([k]) => k !== 'timezone')
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(' | ') : String(v)}`)
    .join(', ');
  return `${what} (${job.timezone})${job.editedOutside ? ' [edited outside temporal-flow]' : ''}`;
}

/** The trigger in words; the stored form when it cannot be read (a spec edited into an unknown shape). */
function triggerWords(job: JobSummary): string {
  if (job.foreign) return `(foreign: ${job.workflowType ?? 'unknown action'})`;
  try {
    return triggerInWords(job.trigger, job.timezone);
  } catch (err) {
    if (err instanceof InvalidTriggerError) return triggerAsGiven(job);
    throw err;
  }
}

function zoneOf(job: JobSummary, ctx: RenderContext): string {
  return job.foreign ? ctx.zone : job.timezone;
}

/** A job's tab-separated line, as scripts read it: id, pipeline, trigger, next run (UTC ISO). */
function jobLine(job: JobSummary): string[] {
  const next = job.paused ? 'paused' : (job.nextRunTimes[0]?.toISOString() ?? '-');
  return [job.id, job.foreign ? '-' : job.pipeline, triggerAsGiven(job), next];
}

function jobState(job: JobSummary): string {
  if (job.paused) return 'paused';
  if (job.foreign) return 'foreign';
  return job.editedOutside ? 'edited outside' : 'active';
}

/** `tflow jobs list`: a table on a terminal, tab-separated lines elsewhere. */
export function renderJobList(jobs: JobSummary[], ctx: RenderContext): string[] {
  if (jobs.length === 0) return ['no jobs'];
  if (!ctx.isTTY) return renderTable([], jobs.map(jobLine), ctx);
  const p = paint(ctx);
  return renderTable(
    ['JOB', 'PIPELINE', 'TRIGGER', 'NEXT RUN', 'STATE'],
    jobs.map((job) => {
      const next = job.nextRunTimes[0];
      return [
        job.id,
        job.foreign ? '-' : job.pipeline,
        triggerWords(job),
        job.paused || !next ? '-' : whenInWords(next, zoneOf(job, ctx), ctx.now),
        paintStatus(jobState(job), p),
      ];
    }),
    ctx,
  );
}

function policyWords(job: JobDescription): string {
  if (job.foreign) return '-';
  const given = Object.entries(job.policies).map(
    ([k, v]) => `${k} ${v instanceof Date ? v.toISOString() : String(v)}`,
  );
  return given.length > 0
    ? given.join(', ')
    : 'defaults (one run at a time, a run due while one runs is skipped)';
}

/** Aligned `label  value` lines; a value of several lines continues under the first. */
function card(rows: [string, string | string[]][], ctx: RenderContext): string[] {
  const p = paint(ctx);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.flatMap(([label, value]) => {
    const lines = Array.isArray(value) ? (value.length > 0 ? value : ['-']) : [value];
    return lines.map((line, i) => `  ${i === 0 ? p.dim(label.padEnd(width)) : ' '.repeat(width)}  ${line}`);
  });
}

/** What `tflow jobs get` shows on a terminal. */
export interface JobCardInput {
  job: JobDescription;
  /** Latest runs, newest first (getHistory). */
  runs: JobRun[];
  dstWarnings: DstWarning[];
}

/** `tflow jobs get` on a terminal: the job as a card. */
export function renderJobCard({ job, runs, dstWarnings }: JobCardInput, ctx: RenderContext): string[] {
  const p = paint(ctx);
  const zone = zoneOf(job, ctx);
  const state = paintStatus(jobState(job), p);
  const head = `${p.bold(job.id)}  ${job.foreign ? '' : `pipeline ${job.pipeline}  `}${state}`;
  const rows: [string, string | string[]][] = [];
  rows.push(['Trigger', job.foreign ? triggerWords(job) : [triggerWords(job), p.dim(triggerAsGiven(job))]]);
  if (job.note) rows.push(['Note', job.note]);
  rows.push([
    'Next runs',
    job.paused
      ? ['paused: no run starts until `tflow jobs resume`']
      : job.nextRunTimes.slice(0, 5).map((t) => whenInWords(t, zone, ctx.now)),
  ]);
  if (!job.foreign) {
    rows.push([
      'DST',
      dstWarnings.length > 0
        ? dstWarnings.map((w) => p.yellow(w.message))
        : ['no clock change affects this job in the coming year'],
    ]);
    rows.push(['Policies', policyWords(job)]);
    if (job.onError) rows.push(['On error', job.onError]);
    const c = job.counters;
    rows.push([
      'Counters',
      `${c.actionsTaken} started, ${c.running} running, ${c.skippedOverlap} skipped (overlap), ${c.missedCatchupWindow} missed (catch-up window)`,
    ]);
    rows.push(['Created', whenInWords(job.createdAt, zone, ctx.now)]);
    if (job.updatedAt) rows.push(['Updated', whenInWords(job.updatedAt, zone, ctx.now)]);
  }
  const last =
    runs.length > 0
      ? renderTable(RUN_HEADERS, runRows(runs, { ...ctx, zone }), { ...ctx, isTTY: true }).map(
          (l) => `    ${l}`,
        )
      : ['    no runs yet'];
  return [
    head,
    ...card(rows, ctx),
    `  ${p.dim('Last runs')}`,
    ...last,
    `  ${p.dim(`times in ${zone}; now ${localTime(ctx.now, zone)}`)}`,
  ];
}
