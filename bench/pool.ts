/*
 * Calls in flight for the benches that create or read many jobs (jobs-at-rest, alert-storm).
 */
import { performance } from 'node:perf_hooks';

/**
 * Runs `fn` over `ids`, `width` at a time; with `progress`, prints `<phase> done/total, about N s left`
 * at most every 10 s through it. Returns the wall time in ms.
 */
export async function pool(
  ids: string[],
  fn: (id: string) => Promise<unknown>,
  width: number,
  progress?: { phase: string; log: (text: string) => void },
): Promise<number> {
  const start = performance.now();
  let next = 0;
  let done = 0;
  let lastLine = start;
  const lane = async () => {
    for (let i = next++; i < ids.length; i = next++) {
      await fn(ids[i]!);
      done++;
      const now = performance.now();
      if (progress && now - lastLine >= 10_000) {
        lastLine = now;
        const left = ((now - start) / done) * (ids.length - done);
        progress.log(`${progress.phase} ${done}/${ids.length}, about ${(left / 1000).toFixed(0)} s left`);
      }
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return performance.now() - start;
}
