/*
 * `npm run bench`: runs every `bench/*.bench.ts` in turn (or those named on the command line, passing
 * them the `--options` that follow the names) against one embedded dev server, each printing its own
 * figures. Benchmarks print ratios against a baseline run side by side in the same process; nothing here
 * asserts on time. At the end it prints one summary table of every bench's figures (bench/summary.ts);
 * `--json <file>` also writes them as JSON. A bench that fails is reported at the end (exit code 1) after
 * the others have run, and the summary keeps the rows of every bench that wrote them. `jobs-at-rest` and `alert-storm` start a fresh server per side themselves (an
 * at-rest figure needs a server holding only that side's jobs): run alone, no embedded server is started.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readEnv } from '../src/config';
import { DevServer } from '../src/devserver';
import { formatSummary, readRows } from './summary';

/** Benches that start servers of their own and use no address. */
const OWN_SERVERS = ['jobs-at-rest.bench.ts', 'fairness.bench.ts', 'alert-storm.bench.ts'];

async function main(): Promise<void> {
  const env = readEnv();
  // `npm run bench -- fire-burst --jobs 1000`: names pick benchmarks, `--options` from the first on go to each.
  const argv = process.argv.slice(2);
  // `--json <file>` is ours, not the benches'.
  const jsonAt = argv.indexOf('--json');
  const jsonFile = jsonAt >= 0 ? argv.splice(jsonAt, 2)[1] : undefined;
  if (jsonAt >= 0 && !jsonFile) throw new Error('--json needs a file name');
  const firstOption = argv.findIndex((a) => a.startsWith('--'));
  const only = firstOption < 0 ? argv : argv.slice(0, firstOption);
  const forwarded = firstOption < 0 ? [] : argv.slice(firstOption);
  const files = readdirSync(__dirname)
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
    .sort();
  if (files.length === 0) throw new Error(`no benchmark matches ${only.join(' ')}`);
  let address = env.temporalAddress;
  let server: DevServer | undefined;
  if (!address && !files.every((f) => OWN_SERVERS.includes(f))) {
    server = await DevServer.startEphemeral(env);
    address = server.address;
  }
  const summaryDir = mkdtempSync(path.join(os.tmpdir(), 'tflow-bench-'));
  const summaryFile = path.join(summaryDir, 'rows.jsonl');
  const failed: string[] = [];
  try {
    for (const file of files) {
      console.log(`\n=== ${file} ===`);
      // Not spawnSync: this process must keep draining the embedded server's output while a bench runs.
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, file), ...forwarded], {
        stdio: 'inherit',
        env: {
          ...process.env,
          ...(address ? { TEMPORAL_ADDRESS: address } : {}),
          TFLOW_BENCH_SUMMARY: summaryFile,
          // A bench may leave what it created on a server that dies with this run.
          TFLOW_BENCH_SERVER: server ? 'ephemeral' : 'external',
        },
      });
      const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
        child.once('exit', (c, s) => resolve([c, s])),
      );
      // A bench that fails does not take the figures of the others with it: the rest still run, and
      // the summary (and `--json`) keeps every row written so far.
      if (code !== 0) failed.push(`${file} exited with ${code ?? signal}`);
    }
    const rows = readRows(summaryFile);
    console.log(`\n=== summary (ours against the baseline run beside it) ===\n${formatSummary(rows)}`);
    if (jsonFile) {
      writeFileSync(
        jsonFile,
        JSON.stringify({ at: new Date().toISOString(), loadAverage: os.loadavg(), failed, rows }, null, 2),
      );
      console.log(`written to ${jsonFile}`);
    }
    if (failed.length > 0) throw new Error(`${failed.length} bench(es) failed: ${failed.join('; ')}`);
  } finally {
    rmSync(summaryDir, { recursive: true, force: true });
    await server?.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
