/*
 * The alert worker of the benches that create jobs with alerts (jobs-at-rest, scheduler-ops), in a process
 * of its own (bench/jobs-at-rest-worker.ts, compiled for plain node against dist/ as a user runs it) so that
 * its RSS and CPU are its own and its load is off the bench's process. It runs until its stdin closes:
 * `child.stdin.end()`, or the bench dying. Builds dist/ first when its workflow bundle is missing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { compileForNode } from './compile-for-node';

const root = path.resolve(__dirname, '..');

/**
 * How the alert worker process is started: `default`, plain `node`; `tuned`, with the settings
 * docs/operations.md recommends for an alert worker in a process of its own (a smaller young generation
 * in each V8 isolate, two malloc arenas for the SDK's threads).
 */
export type AlertWorkerProcess = 'default' | 'tuned';
export const TUNED_NODE_FLAGS = ['--max-semi-space-size=1'];
export const TUNED_ENV = { MALLOC_ARENA_MAX: '2' };

/**
 * The alert worker process, once it polls `taskQueue`: bench/<script>.ts compiled (default
 * jobs-at-rest-worker, which prints nothing more; alert-storm-worker prints its checks).
 */
export async function startWatchdogWorker(
  address: string,
  taskQueue: string,
  script = 'jobs-at-rest-worker',
  mode: AlertWorkerProcess = 'default',
): Promise<ChildProcess> {
  if (!existsSync(path.join(root, 'dist/workflow-bundle.js'))) {
    console.log('dist/workflow-bundle.js is missing: running npm run build first');
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  }
  const js = await compileForNode(script);
  const tuned = mode === 'tuned';
  const child = spawn(process.execPath, [...(tuned ? TUNED_NODE_FLAGS : []), js, address, taskQueue], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...(tuned ? TUNED_ENV : {}) },
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the alert worker exited with ${code}`)));
  });
  return child;
}

/** Ends the alert worker process: closes its stdin (it shuts down), and kills it if it has not gone in 20 s. */
export async function stopWatchdogWorker(worker: ChildProcess | undefined): Promise<void> {
  if (!worker || worker.exitCode !== null) return;
  worker.stdin!.end();
  const exited = new Promise((r) => worker.once('exit', r));
  const killer = setTimeout(() => worker.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(killer);
}
