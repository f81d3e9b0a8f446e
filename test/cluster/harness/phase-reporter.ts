import type { Reporter, TestModule } from 'vitest/node' with { 'resolution-mode': 'import' };

/**
 * Prints the wall time of each vitest project of `npm run test:cluster` (the suite, the fault round):
 * from its first test file's start to its last one's end.
 */
export default class PhaseReporter implements Reporter {
  private readonly spans = new Map<string, { start: number; end: number }>();

  onTestModuleStart(module: TestModule): void {
    const name = module.project.name;
    const span = this.spans.get(name);
    if (!span) this.spans.set(name, { start: Date.now(), end: Date.now() });
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.spans.get(module.project.name);
    if (span) span.end = Date.now();
  }

  onTestRunEnd(): void {
    for (const [name, { start, end }] of this.spans)
      console.log(`[cluster] ${name}: ${((end - start) / 1000).toFixed(1)} s`);
  }
}
