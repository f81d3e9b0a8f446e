import { spawn } from 'node:child_process';
import path from 'node:path';
import { expect, inject, it } from 'vitest';

/** `npx tsx examples/flow-demo.ts` as a user runs it, against the suite's server. */
async function runDemo(): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/flow-demo.ts'], {
    cwd: path.resolve(__dirname, '../..'),
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, lines: out.split('\n').filter(Boolean) };
}

it('examples/flow-demo.ts runs each flow example: child pipeline, chain, sleep, waitFor', async () => {
  const { code, lines } = await runDemo();
  expect(code).toBe(0);
  expect(lines).toEqual([
    expect.stringMatching(
      /^child pipeline: loaded .*eu\.json \(child run load-via-child-\d{8}T\d{6}Z-.+\/summary\)$/,
    ),
    expect.stringMatching(/^chain: load-summary ran as summary-then-load-.+-load and loaded .*us\.json$/),
    expect.stringMatching(/^sleep: sampleHost \d+ ms, settle \d+ ms, judgeHealth \d+ ms$/),
    'waitFor: eu report published, approved by ann',
  ]);
  expect(Number(/settle (\d+) ms/.exec(lines[2]!)![1])).toBeGreaterThanOrEqual(2000);
});
