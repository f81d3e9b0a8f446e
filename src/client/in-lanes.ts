/**
 * Calls `each` for every item, at most `lanes` at once, in order of start (the n-th call gets the n-th
 * item and its index). For reads that fan out over many jobs without flooding the server.
 */
export async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  each: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) await each(items[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
}
