import type { RenderContext } from './render-context';
import { paint } from './render-context';

// Escape sequences take no room on screen: widths are measured without them.
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

/** Columns a string takes on screen (ANSI colors excluded). */
export function visibleWidth(s: string): number {
  return [...s.replace(ANSI, '')].length;
}

/**
 * A table: on a terminal, a bold header and columns aligned with two spaces between them; elsewhere the
 * rows alone, tab-separated, with colors only if asked for (what scripts have always read).
 */
export function renderTable(headers: string[], rows: string[][], ctx: RenderContext): string[] {
  if (!ctx.isTTY) return rows.map((r) => r.join('\t').trimEnd());
  const widths = headers.map((h, i) =>
    Math.max(visibleWidth(h), ...rows.map((r) => visibleWidth(r[i] ?? ''))),
  );
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i]! - visibleWidth(c))))
      .join('  ')
      .trimEnd();
  const p = paint(ctx);
  return [p.bold(line(headers)), ...rows.map(line)];
}
