import type { DeadLetter } from '../../client/dead-letters/dead-letters';
import type { RenderContext } from './render-context';
import { paint } from './render-context';
import { renderTable } from './table';
import { whenInWords } from './time-words';

const HEADERS = ['FAILED', 'PIPELINE', 'FAILED STEP', 'FAILURES', 'WORKFLOW ID', 'ERROR'];

/**
 * The dead-letter queue: one row per letter, newest failure first. On a terminal a table with times in the
 * user's zone; piped, tab-separated rows (failed at as UTC ISO).
 */
export function renderDeadLetters(letters: DeadLetter[], ctx: RenderContext): string[] {
  if (letters.length === 0) return ['no dead letters'];
  const p = paint(ctx);
  const at = (l: DeadLetter) => l.closeTime ?? l.startTime;
  const rows = letters.map((l) => [
    ctx.isTTY ? whenInWords(at(l), ctx.zone, ctx.now) : at(l).toISOString(),
    l.pipeline ?? '-',
    l.failedStep ?? '-',
    String(l.failures),
    l.workflowId,
    p.red((l.message ?? '').replace(/\s+/g, ' ')),
  ]);
  return renderTable(HEADERS, rows, ctx);
}
