import { randomUUID } from 'node:crypto';
import type { Client, ScheduleDescription, ScheduleUpdateOptions } from '@temporalio/client';
import {
  compileUpdatedScheduleOptions,
  encodeScheduleAction,
  encodeSchedulePolicies,
  encodeScheduleSpec,
  encodeScheduleState,
} from '@temporalio/client/lib/schedule-helpers';
import { encodeUnifiedSearchAttributes } from '@temporalio/common/lib/converter/payload-search-attributes';
import { TypedSearchAttributes } from '@temporalio/common';
import { JobConflictError, isStaleConflictToken, translateScheduleError } from '../../errors';
import { SET_SEARCH_ATTRIBUTE } from '../../../workflows/search-attributes';
import { APPLIED_MEMO_KEY } from './schedule-memo';
import { describeJobSchedule } from './describe-job';
import { withAlertsOfRecord } from './job-alerts-attribute';

/*
 * The one way temporal-flow writes an existing schedule: UpdateSchedule with the conflict token of the
 * description the update was computed from, then a check that it landed, then (if it did not) the same
 * change re-applied to a fresh description.
 *
 * Why the check: the SDK's ScheduleHandle.update() sends no conflict token, so concurrent edits overwrite
 * each other. With the token, Temporal's workflow-based scheduler (the default of Server 1.x) drops a stale
 * update silently and still answers OK (service/worker/scheduler/workflow.go, processUpdate); only the newer
 * CHASM scheduler answers FAILED_PRECONDITION. So each write carries an id, kept in the action's memo with
 * the ids of the latest writes before it; a describe (strongly consistent: it is a workflow query answered
 * after the update signal) shows whether the id is there. A later write computed from ours keeps our id in
 * the list, so a write that landed is never mistaken for a lost one.
 */

/** Key of the action memo's list of the latest write ids. Persisted: its meaning must not change. */
export const WRITES_MEMO_KEY = 'tflowWrites';
/** Write ids kept: far more than the writes that can land between one write and its check. */
const KEPT_WRITES = 16;
/** Attempts of one edit before JobConflictError: ten writers at once each land within ten. */
export const EDIT_ATTEMPTS = 10;
const BACKOFF_BASE_MS = 25;
const BACKOFF_CAP_MS = 1_000;

/** What a builder gives: the update to send (job writers add what they wrote, see build-updates.ts). */
export interface ScheduleWrite {
  readonly update: ScheduleUpdateOptions;
}

/** Builds the write from the job's current description; called again, with a fresh one, on each attempt. */
export type JobUpdateBuilder<W extends ScheduleWrite = ScheduleWrite> = (d: ScheduleDescription) => W;

/**
 * Applies `build` to the job's current description and writes it with that description's conflict
 * token, until the write is seen to have landed.
 *
 * @returns the write that landed, as its builder made it: what the caller goes on with (nothing is read
 *   back out of the schedule it just wrote).
 * @throws JobConflictError when `attempts` writes in a row lost to concurrent ones.
 * @throws JobNotFoundError when the schedule does not exist (or stopped existing); and whatever `build` throws.
 */
export async function updateJob<W extends ScheduleWrite>(
  client: Client,
  jobId: string,
  build: JobUpdateBuilder<W>,
  attempts = EDIT_ATTEMPTS,
): Promise<W> {
  const mine = new Map<string, W>();
  let d = await describe(client, jobId);
  for (let attempt = 1; ; attempt++) {
    const writeId = randomUUID();
    const write = build(d);
    mine.set(writeId, write);
    // Every write leaves the alerts attribute in step with the record it writes (job-alerts-attribute.ts).
    const update = await withAlertsOfRecord(
      client.schedule.options.loadedDataConverter,
      stamped(write.update, d, writeId),
      d,
    );
    await send(client, jobId, d, update);
    d = await describe(client, jobId);
    const landed = landedWrite(d, mine);
    if (landed) return landed;
    if (attempt >= attempts) throw new JobConflictError(jobId, attempt);
    // Full jitter: writers that met each other spread out instead of meeting again.
    const cap = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
    await new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
    d = await describe(client, jobId);
  }
}

async function describe(client: Client, jobId: string): Promise<ScheduleDescription> {
  try {
    return await describeJobSchedule(client, jobId);
  } catch (err) {
    translateScheduleError(err, jobId);
  }
}

function writesOf(d: ScheduleDescription): string[] {
  const value = d.action.memo?.[WRITES_MEMO_KEY];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Which of our writes the description shows landed (the latest of them), if any. */
function landedWrite<W>(d: ScheduleDescription, mine: Map<string, W>): W | undefined {
  const writes = writesOf(d);
  return [...mine].reverse().find(([id]) => writes.includes(id))?.[1];
}

/** The update with this write's id added to the ids of the writes it was computed from. */
function stamped(update: ScheduleUpdateOptions, d: ScheduleDescription, writeId: string) {
  const writes = [...writesOf(d), writeId].slice(-KEPT_WRITES);
  return {
    ...update,
    action: { ...update.action, memo: { ...update.action.memo, [WRITES_MEMO_KEY]: writes } },
  } satisfies ScheduleUpdateOptions;
}

/**
 * The update with the schedule's TflowSet carried along when it sends search attributes (Temporal replaces
 * them all): the set that adopted a job is named by apply's writes only, and every other write keeps it.
 * A description's search attributes can lag the write before it by a moment (seen: an update, then a
 * describe at once), while its action is the schedule's own: the set of the mark apply wrote beside
 * TflowSet (schedule-memo.ts) stands in when the attribute is not there.
 */
function keepingSet(update: ScheduleUpdateOptions, d: ScheduleDescription): ScheduleUpdateOptions {
  const mark = d.action.memo?.[APPLIED_MEMO_KEY] as { set?: unknown } | undefined;
  const set =
    d.typedSearchAttributes.get(SET_SEARCH_ATTRIBUTE) ??
    (typeof mark?.set === 'string' ? mark.set : undefined);
  const sent = update.typedSearchAttributes;
  if (set === undefined || sent === undefined) return update;
  const pairs = sent instanceof TypedSearchAttributes ? sent.getAll() : sent;
  if (pairs.some((p) => p.key.name === SET_SEARCH_ATTRIBUTE.name)) return update;
  return { ...update, typedSearchAttributes: [...pairs, { key: SET_SEARCH_ATTRIBUTE, value: set }] };
}

/** UpdateSchedule with the description's conflict token, encoded as the SDK encodes its own updates. */
async function send(
  client: Client,
  jobId: string,
  d: ScheduleDescription,
  update: ScheduleUpdateOptions,
): Promise<void> {
  const { namespace, identity, loadedDataConverter } = client.schedule.options;
  const compiled = compileUpdatedScheduleOptions(jobId, keepingSet(update, d));
  // Headers set at creation (e.g. by interceptors) are kept, as ScheduleHandle.update() keeps them.
  const header = d.raw.schedule?.action?.startWorkflow?.header?.fields ?? {};
  try {
    await client.workflowService.updateSchedule({
      namespace,
      scheduleId: jobId,
      schedule: {
        spec: encodeScheduleSpec(compiled.spec),
        action: await encodeScheduleAction(loadedDataConverter, namespace, compiled.action, header),
        policies: encodeSchedulePolicies(compiled.policies),
        state: encodeScheduleState(compiled.state),
      },
      conflictToken: d.raw.conflictToken,
      identity,
      requestId: randomUUID(),
      ...(compiled.typedSearchAttributes
        ? {
            searchAttributes: {
              indexedFields: encodeUnifiedSearchAttributes(undefined, compiled.typedSearchAttributes),
            },
          }
        : {}),
    });
  } catch (err) {
    // A refused stale token is a write that did not land: the check after it sees that.
    if (!isStaleConflictToken(err)) translateScheduleError(err, jobId);
  }
}
