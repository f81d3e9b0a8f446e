/*
 * The run's "current details" in the Temporal UI (Temporal's user metadata, read through the built-in
 * `__temporal_workflow_metadata` query): where the run is, as Markdown. Held in workflow memory only: no
 * command, nothing in the history, so the text may change freely between releases.
 */
import { setCurrentDetails } from '@temporalio/workflow';
import { formatDuration } from '../../parse/duration';
import type { PipelineProgress } from '../run-types';

/** Finished steps listed by name; beyond that, counted. */
const MAX_LISTED = 20;

/** Current details of a run at `progress`, Markdown; `note` says why (e.g. a skip reason). */
export function progressDetails(progress: PipelineProgress, note?: string): string {
  const running = progress.running?.length
    ? progress.running
    : progress.currentStep
      ? [progress.currentStep]
      : [];
  const lines = [
    `**Pipeline:** ${progress.pipeline}`,
    `**Status:** ${progress.status}${note ? ` (${note})` : ''}`,
  ];
  if (running.length === 1) lines.push(`**Current step:** ${running[0]}`);
  else if (running.length > 1) lines.push(`**Current steps:** ${running.join(', ')}`);
  for (const w of progress.waiting ?? []) {
    const what = w.kind === 'sleep' ? 'sleeping' : `waiting for signal "${w.signal}"`;
    lines.push(`**${w.step}:** ${what}${w.until ? ` until ${w.until}` : ''}`);
  }
  for (const c of progress.children ?? []) lines.push(`**Child ${c.step}:** ${c.workflowId} (${c.status})`);
  const done = progress.completed;
  if (done.length > 0) {
    const listed = done.slice(0, MAX_LISTED).map((s) => `${s.id} (${formatDuration(s.durationMs)})`);
    const more = done.length > MAX_LISTED ? `, and ${done.length - MAX_LISTED} more` : '';
    lines.push(`**Done:** ${listed.join(', ')}${more}`);
  }
  if (progress.compensations?.length) {
    lines.push(
      `**Compensations:** ${progress.compensations.map((c) => `${c.activity} for ${c.stepId}: ${c.status}`).join(', ')}`,
    );
  }
  return lines.join('\n\n');
}

/** Shows `progress` as the run's current details in the Temporal UI. */
export function showProgress(progress: PipelineProgress, note?: string): void {
  setCurrentDetails(progressDetails(progress, note));
}

/**
 * Shows what `render` returns as the run's current details, rendered only when someone reads them (the
 * Temporal UI's `__temporal_workflow_metadata` query) rather than at every change of the run: a run of 3
 * steps changed its details 11 times and was read none (bench/run-profile). The SDK keeps the details as
 * given and answers the query with a `RawValue` of them, which the default payload converter encodes as
 * JSON: an object's `toJSON` is called there, at the time of the query. Read from workflow code (our own
 * never does), the details are this object, whose `toString()` renders them too.
 */
export function showWhenRead(render: () => string): void {
  setCurrentDetails(new RenderedWhenRead(render) as unknown as string);
}

class RenderedWhenRead {
  constructor(private readonly render: () => string) {}

  toJSON(): string {
    return this.render();
  }

  toString(): string {
    return this.render();
  }
}
