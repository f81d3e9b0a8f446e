import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { findTool, firstLine, versionOf } from './find-tool';

const run = promisify(execFile);

/*
 * The Python of the Python step tests (test/integration/python-*.test.ts): a virtual environment in
 * `.tflow/python` with examples/python/requirements.txt (temporalio, cryptography) from PyPI, as the
 * Temporal CLI is installed into `.tflow/` (src/devserver/find-cli.ts). The Python found first is `PYTHON`,
 * then python3 and python on PATH (find-tool.ts, as the browser and promtool are found).
 *
 * Cached and idempotent: the environment keeps a copy of the requirements it was made with, and is made
 * again only when they differ. Concurrency-safe: two test files that install at once take turns through a
 * lock folder (mkdir is atomic); the second finds the first's environment and installs nothing.
 */

const ROOT = path.resolve(__dirname, '../..');
/** Where the virtual environment lives. */
export const PYTHON_VENV = path.join(ROOT, '.tflow', 'python');
export const PYTHON_REQUIREMENTS = path.join(ROOT, 'examples', 'python', 'requirements.txt');
/** What PYTHONPATH holds for the tests: the package's Python side and the example's steps. */
export const PYTHON_PATH = [path.join(ROOT, 'python'), path.join(ROOT, 'examples', 'python')].join(
  path.delimiter,
);

const STAMP = 'tflow-requirements.txt';
/** A lock older than this belongs to an install that died (pip install takes well under a minute). */
const STALE_LOCK_MS = 10 * 60_000;
const INSTALL_TIMEOUT_MS = 8 * 60_000;

/** No Python 3 with venv and pip: `attempts` says, on one line, what was tried. */
export class PythonNotFoundError extends Error {
  constructor(readonly attempts: readonly string[]) {
    super(
      `no Python 3 with pip for the Python step tests: ${attempts.join('; ')}. ` +
        'Install python3 with its venv and pip modules (Debian: apt-get install python3-venv python3-pip), or set PYTHON to one.',
    );
    this.name = 'PythonNotFoundError';
  }
}

export interface EnsurePythonOptions {
  /** `PYTHON` (read by src/config.ts), when set. */
  explicitPath: string | undefined;
  searchPath: string;
  /** @default {@link PYTHON_VENV} */
  venv?: string;
  /** @default {@link PYTHON_REQUIREMENTS} */
  requirements?: string;
  /** Told before an install starts. @default console.warn */
  log?: (line: string) => void;
}

/** The environment's Python, and how long its install took when this call made it. */
export interface PythonEnv {
  python: string;
  version: string;
  installedInMs?: number;
}

export const venvPython = (venv: string) =>
  path.join(
    venv,
    process.platform === 'win32' ? 'Scripts' : 'bin',
    process.platform === 'win32' ? 'python.exe' : 'python',
  );

async function readText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The environment when it was made with these requirements and its Python runs. */
async function cached(venv: string, requirements: string): Promise<PythonEnv | undefined> {
  if ((await readText(path.join(venv, STAMP))) !== requirements) return undefined;
  const found = await versionOf(venvPython(venv), 'installed', []);
  return found ? { python: found.path, version: found.version } : undefined;
}

async function withLock<T>(lock: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + INSTALL_TIMEOUT_MS + 60_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const since = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) {
        // The install that held it died: take it over.
        await rm(lock, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`${lock} is still held after ${INSTALL_TIMEOUT_MS / 60_000} min`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * The virtual environment's Python, made (`python3 -m venv`, `pip install -r requirements`) when it is
 * missing or was made with other requirements.
 *
 * @throws PythonNotFoundError when no Python with venv and pip is found, or the install fails.
 */
export async function ensurePythonEnv(opts: EnsurePythonOptions): Promise<PythonEnv> {
  const venv = opts.venv ?? PYTHON_VENV;
  const requirements = await readFile(opts.requirements ?? PYTHON_REQUIREMENTS, 'utf8');
  const ready = await cached(venv, requirements);
  if (ready) return ready;
  return withLock(`${venv}.lock`, async () => {
    // Another process may have made it while this one waited for the lock.
    const madeMeanwhile = await cached(venv, requirements);
    if (madeMeanwhile) return madeMeanwhile;
    const { found, tried } = await findTool({
      explicitPath: opts.explicitPath,
      explicitName: 'PYTHON',
      names: ['python3', 'python'],
      searchPath: opts.searchPath,
    });
    if (!found) throw new PythonNotFoundError(tried);
    if (!/^Python 3\./.test(found.version)) {
      throw new PythonNotFoundError([
        ...tried,
        `${found.source}: ${found.path} is ${found.version}, not Python 3`,
      ]);
    }
    const started = Date.now();
    (opts.log ?? console.warn)(
      `making ${venv} for the Python step tests (${found.path} -m venv, pip install -r ${path.relative(ROOT, opts.requirements ?? PYTHON_REQUIREMENTS)})`,
    );
    try {
      await run(found.path, ['-m', 'venv', '--clear', venv], { timeout: 120_000 });
    } catch (err) {
      throw new PythonNotFoundError([...tried, `${found.path} -m venv: ${firstLine(err)}`]);
    }
    const python = venvPython(venv);
    const reqFile = path.join(venv, 'requirements.txt');
    await writeFile(reqFile, requirements);
    try {
      await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', '-r', reqFile], {
        timeout: INSTALL_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (err) {
      throw new PythonNotFoundError([
        ...tried,
        `pip install -r requirements.txt in ${venv}: ${lastLine(err)}`,
      ]);
    }
    // Written last: an install that died half-way is made again.
    await writeFile(path.join(venv, STAMP), requirements);
    const made = await versionOf(python, 'installed', []);
    return { python, version: made?.version ?? '', installedInMs: Date.now() - started };
  });
}

/** pip says what went wrong on its last line (firstLine's `ENOENT` case aside). */
function lastLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException & { stderr?: string };
  if (e.code === 'ENOENT') return 'not found';
  const lines = (e.stderr || e.message).trim().split('\n');
  return (lines.at(-1) ?? '').trim();
}
