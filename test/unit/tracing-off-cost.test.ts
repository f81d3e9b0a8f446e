import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');

/** The OpenTelemetry and tracing-interceptor packages a fresh Node process has loaded after `code`. */
async function loadedTracingPackages(code: string): Promise<string[]> {
  const script = `${code}
const loaded = Object.keys(require.cache).filter((f) => /node_modules\\/(@opentelemetry|@temporalio\\/interceptors-opentelemetry)\\//.test(f));
console.log(JSON.stringify([...new Set(loaded.map((f) => f.replace(/.*node_modules\\/((@[^/]+\\/)?[^/]+).*/, '$1')))]));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: root,
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as string[];
}

describe('tracing off costs nothing', () => {
  it('loading the worker, the clients and the public API loads no OpenTelemetry SDK, exporter or interceptor', async () => {
    const loaded = await loadedTracingPackages(
      "require('./src/worker'); require('./src/index'); require('./src/client/runs/pipeline-client');",
    );
    // The API alone (no-op until an SDK registers) is loaded by prom-client, the worker's metrics, as before.
    expect(loaded.filter((p) => p !== '@opentelemetry/api')).toEqual([]);
  });

  it('a tracing setup loads them (the check above can see them)', async () => {
    const loaded = await loadedTracingPackages(
      "require('./src/client/tracing').resolveTracing({ spanProcessor: { onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} }, resource: undefined });",
    );
    expect(loaded).toEqual(expect.arrayContaining(['@opentelemetry/sdk-trace-base', '@opentelemetry/api']));
  });
});
