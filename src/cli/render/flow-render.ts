import type { FlowControlListing } from '../../client/runs/flow-list';
import type { RenderContext } from './render-context';
import { renderTable } from './table';
import { relativeTime } from './time-words';

const HEADERS = ['PIPELINE', 'KEY', 'CONTROL', 'PENDING', 'NEXT RUN', 'RUNS STARTED'];

/**
 * The flow controls and what waits in them, most events pending first. On a terminal the next run in words
 * (`in 3 s`); piped, tab-separated rows with it as a UTC ISO instant.
 */
export function renderFlowControls({ flows, unreadable }: FlowControlListing, ctx: RenderContext): string[] {
  const notes = unreadable.map((u) => `could not read ${u.workflowId}: ${u.unreadable}`);
  return [...renderReadable(flows, ctx), ...(notes.length > 0 ? ['', ...notes] : [])];
}

function renderReadable(flows: FlowControlListing['flows'], ctx: RenderContext): string[] {
  if (flows.length === 0)
    return ['no flow control is running (nothing debounced, batched, throttled or deduplicated waits)'];
  const rows = flows.map((f) => [
    f.pipeline,
    f.key === '' ? '-' : f.key,
    f.kind,
    String(f.events),
    f.dueAt === undefined
      ? '-'
      : ctx.isTTY
        ? relativeTime(new Date(f.dueAt), ctx.now)
        : new Date(f.dueAt).toISOString(),
    String(f.started),
  ]);
  return renderTable(HEADERS, rows, ctx);
}
