/*
 * `npm run bench`: runs every `bench/*.bench.ts` in turn (or those named on the command line, passing
 * them the `--options` that follow the names) against one embedded dev server, each printing its own
 * figures. Benchmarks print ratios against a baseline run side by side in the same process; nothing here
 * asserts on time.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { readEnv } from '../src/config';
import { DevServer } from '../src/devserver';

async function main(): Promise<void> {
  const env = readEnv();
  // `npm run bench -- fire-burst --jobs 1000`: names pick benchmarks, `--options` from the first on go to each.
  const argv = process.argv.slice(2);
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
  if (!address) {
    server = await DevServer.startEphemeral(env);
    address = server.address;
  }
  try {
    for (const file of files) {
      console.log(`\n=== ${file} ===`);
      // Not spawnSync: this process must keep draining the embedded server's output while a bench runs.
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, file), ...forwarded], {
        stdio: 'inherit',
        env: { ...process.env, TEMPORAL_ADDRESS: address },
      });
      const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
        child.once('exit', (c, s) => resolve([c, s])),
      );
      if (code !== 0) throw new Error(`${file} exited with ${code ?? signal}`);
    }
  } finally {
    await server?.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
