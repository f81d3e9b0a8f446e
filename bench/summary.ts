/*
 * The one summary table of `npm run bench`: each benchmark process appends its figures (ours against
 * its baseline, measured side by side) to the file bench/run.ts names in TFLOW_BENCH_SUMMARY; run.ts
 * prints them all at the end, and writes them with `--json <file>`. A benchmark run on its own prints
 * its rows itself.
 */
import { appendFileSync, readFileSync } from 'node:fs';

/** One figure: ours against the baseline run beside it (`baseline` absent when there is none). */
export interface SummaryRow {
  bench: string;
  /** What was measured, with its conditions, e.g. `throughput, 10 in flight`. */
  metric: string;
  unit: string;
  /** Label of our side, e.g. `pipeline (local steps)`. */
  ours: string;
  oursValue: number;
  /** Label of the baseline side, e.g. `hand-written (local)`. */
  baseline?: string;
  baselineValue?: number;
  /** ours / baseline. */
  ratio?: number;
  /** A bench (or side) that did not run, with why. */
  skipped?: string;
}

/** A bench's `--name value` argument as a positive integer. */
export function intArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

/** A bench's `--name a,b,c` argument as positive integers. */
export function intListArg(name: string, fallback: number[]): number[] {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const values = String(process.argv[i + 1])
    .split(',')
    .map(Number);
  if (values.some((v) => !Number.isInteger(v) || v < 1)) {
    throw new Error(`--${name} must be positive integers separated by commas, e.g. 1000,10000`);
  }
  return values;
}

/** Appends rows to the run's summary, or prints them when the bench runs on its own. */
export function reportRows(rows: SummaryRow[]): void {
  const file = process.env.TFLOW_BENCH_SUMMARY;
  if (file) appendFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  else console.log(formatSummary(rows));
}

/** Rows a summary file holds. */
export function readRows(file: string): SummaryRow[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return []; // no bench reported anything
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SummaryRow);
}

const fmt = (n: number | undefined) =>
  n === undefined ? '' : Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2);

/** The rows as one aligned text table. */
export function formatSummary(rows: SummaryRow[]): string {
  const header = ['bench', 'metric', 'ours', 'value', 'baseline', 'value', 'ratio', 'unit'];
  const body = rows.map((r) =>
    r.skipped
      ? [r.bench, r.metric, `skipped: ${r.skipped}`, '', '', '', '', '']
      : [
          r.bench,
          r.metric,
          r.ours,
          fmt(r.oursValue),
          r.baseline ?? '',
          fmt(r.baselineValue),
          r.ratio === undefined ? '' : r.ratio.toFixed(3),
          r.unit,
        ],
  );
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
