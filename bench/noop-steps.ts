/** The no-op steps both sides of bench/pipeline-overhead.bench.ts and bench/run-cost.bench.ts call. */
export const noopSteps = {
  async stepA(x: number): Promise<number> {
    return x + 1;
  },
  async stepB(x: number): Promise<number> {
    return x + 1;
  },
  async stepC(x: number): Promise<number> {
    return x + 1;
  },
};
