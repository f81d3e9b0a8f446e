/*
 * The bytes of a run's history, by what they carry: what bench/run-bytes.bench.ts and
 * bench/run-profile.bench.ts count. Counted from the history the server returns (the Payload and event
 * protos encoded again), so a run of the same code gives the same bytes whatever the machine's load.
 */
import { temporal } from '@temporalio/proto';

type IHistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What the bytes of a history carry. */
export const HISTORY_PARTS = [
  'input',
  'result',
  'user metadata',
  'memo',
  'search attributes',
  'activity payloads',
  'rest',
] as const;
export type HistoryPart = (typeof HISTORY_PARTS)[number];

const size = <T>(encode: (m: T) => { finish(): Uint8Array }, m: T | null | undefined) =>
  m ? encode(m).finish().length : 0;
const { common, history, sdk } = temporal.api;
const payloads = (p: temporal.api.common.v1.IPayloads | null | undefined) =>
  size((m) => common.v1.Payloads.encode(m), p);

/** A history's bytes by event type (whole events, parts included). */
export function bytesByEventType(events: IHistoryEvent[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of events) {
    const type = temporal.api.enums.v1.EventType[e.eventType ?? 0] ?? String(e.eventType);
    const name = type.replace(/^EVENT_TYPE_/, '');
    out.set(name, (out.get(name) ?? 0) + size((m) => history.v1.HistoryEvent.encode(m), e));
  }
  return out;
}

/** A history's bytes by part; the parts add up to the whole history. */
export function bytesByPart(events: IHistoryEvent[]): Record<HistoryPart, number> {
  const parts = Object.fromEntries(HISTORY_PARTS.map((p) => [p, 0])) as Record<HistoryPart, number>;
  let total = 0;
  for (const e of events) {
    total += size((m) => history.v1.HistoryEvent.encode(m), e);
    parts['user metadata'] += size((m) => sdk.v1.UserMetadata.encode(m), e.userMetadata);
    const started = e.workflowExecutionStartedEventAttributes;
    if (started) {
      parts.input += payloads(started.input);
      parts.memo += size((m) => common.v1.Memo.encode(m), started.memo);
      parts['search attributes'] += size(
        (m) => common.v1.SearchAttributes.encode(m),
        started.searchAttributes,
      );
    }
    parts.result += payloads(e.workflowExecutionCompletedEventAttributes?.result);
    parts['search attributes'] += size(
      (m) => common.v1.SearchAttributes.encode(m),
      e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes,
    );
    parts['activity payloads'] +=
      payloads(e.activityTaskScheduledEventAttributes?.input) +
      payloads(e.activityTaskCompletedEventAttributes?.result) +
      Object.values(e.markerRecordedEventAttributes?.details ?? {}).reduce((n, p) => n + payloads(p), 0);
  }
  parts.rest = total - HISTORY_PARTS.filter((p) => p !== 'rest').reduce((n, p) => n + parts[p], 0);
  return parts;
}
