/*
 * What bench/pipeline-overhead.bench.ts and bench/tracing-overhead.bench.ts share to time their sides:
 * runs kept N in flight (bench/run-cost.bench.ts keeps its runs in flight so too), and the percentiles of
 * single-run latencies.
 */

/**
 * `n` runs of `runOnce` (given 0 to n - 1), `inFlight` at a time: a pool of `inFlight` loops, each
 * starting its next run when one ends. Wall time in ms.
 */
export async function timeInFlight(
  n: number,
  inFlight: number,
  runOnce: (x: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(inFlight, n) }, async () => {
      while (next < n) await runOnce(next++);
    }),
  );
  return performance.now() - start;
}

/** The `p`th percentile (0 to 100) of `values`, by nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
