/*
 * The watchdog worker of the benches that create jobs with alerts (jobs-at-rest, scheduler-ops), in a
 * process of its own (bench/jobs-at-rest-worker.ts) so that its RSS and CPU are its own and its load is
 * off the bench's process. It runs until its stdin closes: `child.stdin.end()`, or the bench dying.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

/** The watchdog worker process, once it polls `taskQueue`. */
export async function startWatchdogWorker(address: string, taskQueue: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'jobs-at-rest-worker.ts'), address, taskQueue],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the watchdog worker exited with ${code}`)));
  });
  return child;
}
