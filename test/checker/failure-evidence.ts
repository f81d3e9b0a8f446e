/*
 * Why a run failed, read from its own history: the activities that failed or timed out (type, attempt,
 * how, the failure's whole cause chain) and the run's own failure. An I4 "failed though nothing made it
 * fail" then names the call that gave up, which a status alone cannot (the long runs at seeds 7352 and
 * 2931 saw runs fail before their first step, and the histories were gone when the report was read).
 * The runs' and their semaphores' histories are kept beside a failing run's history.json.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { concurrencySemaphoreId, semaphoreWorkflowId } from '../../src/workflows/semaphore/semaphore-defs';
import type { History } from './history';
import { keyPipeline } from './pipelines';

type Failure = temporal.api.failure.v1.IFailure | null | undefined;

/** A failure and its causes, outermost first: `message [type]: message [type]...`. */
export function failureChain(f: Failure): string {
  const parts: string[] = [];
  for (let x = f, depth = 0; x && depth < 6; x = x.cause, depth++) {
    const timeout = x.timeoutFailureInfo?.timeoutType;
    const type =
      x.applicationFailureInfo?.type ??
      (x.timeoutFailureInfo
        ? `timeout ${typeof timeout === 'number' ? temporal.api.enums.v1.TimeoutType[timeout] : String(timeout)}`
        : undefined);
    parts.push(type ? `${x.message ?? ''} [${type}]` : (x.message ?? ''));
  }
  return parts.join(' <- ');
}

type Event = temporal.api.history.v1.IHistoryEvent;

const at = (e: Event) => {
  const s = e.eventTime?.seconds;
  if (s === undefined || s === null) return '?';
  // A Long as the SDK decodes it (its decimal text), or a plain number.
  const ms = Number(s.toString()) * 1000 + Math.floor((e.eventTime?.nanos ?? 0) / 1e6);
  return new Date(ms).toISOString();
};

/**
 * One line per activity attempt that failed or timed out (the server records the last attempt of each
 * activity), then the run's own failure; `undefined` when the history could not be read.
 */
export function summarizeFailure(events: readonly Event[]): string {
  const scheduled = new Map<string, string>();
  const lines: string[] = [];
  for (const e of events) {
    const id = String(e.eventId ?? '');
    const s = e.activityTaskScheduledEventAttributes;
    if (s) scheduled.set(id, s.activityType?.name ?? '?');
    const failed = e.activityTaskFailedEventAttributes;
    if (failed) {
      const type = scheduled.get(String(failed.scheduledEventId ?? '')) ?? '?';
      lines.push(`${at(e)} activity ${type} failed: ${failureChain(failed.failure)}`);
    }
    const timedOut = e.activityTaskTimedOutEventAttributes;
    if (timedOut) {
      const type = scheduled.get(String(timedOut.scheduledEventId ?? '')) ?? '?';
      lines.push(`${at(e)} activity ${type} timed out: ${failureChain(timedOut.failure)}`);
    }
    const wf = e.workflowExecutionFailedEventAttributes;
    if (wf) lines.push(`${at(e)} run failed: ${failureChain(wf.failure)}`);
    const wfTimedOut = e.workflowExecutionTimedOutEventAttributes;
    if (wfTimedOut) lines.push(`${at(e)} run timed out`);
    if (e.workflowExecutionTerminatedEventAttributes)
      lines.push(`${at(e)} run terminated: ${e.workflowExecutionTerminatedEventAttributes.reason ?? ''}`);
  }
  return lines.join('; ');
}

/** Reads a run's history and summarizes why it failed; the read's error instead when it cannot. */
export async function readFailure(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<{ summary: string; events: Event[] }> {
  try {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events = history.events ?? [];
    return { summary: summarizeFailure(events), events };
  } catch (err) {
    return { summary: `history not read: ${err instanceof Error ? err.message : String(err)}`, events: [] };
  }
}

/** Full histories kept beside a failing run's history.json: enough to read, not every failed run. */
const HISTORIES_KEPT = 20;

/**
 * At rest: reads why every run that failed without a cause failed (into `h.failures`), and keeps the
 * first {@link HISTORIES_KEPT} of their histories, and those of the semaphores they asked, in `dir`
 * (`failed-runs.json`, `semaphores.json`), which a failing run keeps.
 */
export async function readFailures(client: Client, h: History, dir: string): Promise<void> {
  const failed: { workflowId: string; runId?: string; semaphore?: string }[] = [];
  for (const job of h.jobs)
    for (const r of job.runs)
      if (!['completed', 'skipped', 'running'].includes(r.status))
        failed.push({ workflowId: r.workflowId, runId: r.runId, semaphore: semaphoreWorkflowId(job.id) });
  for (const d of h.direct)
    if (d.start.ok && d.kind !== 'flaky' && d.status !== 'COMPLETED' && d.status !== 'RUNNING')
      failed.push({
        workflowId: d.workflowId,
        ...(d.key ? { semaphore: concurrencySemaphoreId(keyPipeline.spec.name, d.key) } : {}),
      });
  if (failed.length === 0) return;
  h.failures = {};
  const kept: Record<string, Event[]> = {};
  const semaphores = new Set<string>();
  for (const f of failed) {
    const { summary, events } = await readFailure(client, f.workflowId, f.runId);
    h.failures[f.workflowId] = summary;
    if (Object.keys(kept).length < HISTORIES_KEPT) kept[f.workflowId] = events;
    if (f.semaphore && /tflow(QueueFor|Acquire)Slot/.test(summary)) semaphores.add(f.semaphore);
  }
  writeFileSync(path.join(dir, 'failed-runs.json'), JSON.stringify(kept, null, 1));
  const semaphoreHistories: Record<string, Event[] | string> = {};
  for (const id of semaphores) {
    const read = await readFailure(client, id);
    semaphoreHistories[id] = read.events.length ? read.events : read.summary;
  }
  if (semaphores.size)
    writeFileSync(path.join(dir, 'semaphores.json'), JSON.stringify(semaphoreHistories, null, 1));
}
