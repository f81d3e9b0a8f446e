import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * The package as a user gets it: built with tsconfig.build.json into a temporary folder next to the repo's
 * package.json, installed into a consumer's node_modules, then imported by its public names (the
 * `exports` map of package.json), never by a path into src/.
 */
const root = path.resolve(__dirname, '../..');
const repoModules = path.join(root, 'node_modules');
let tmp: string;
let consumer: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tflow-package-'));
  const pkg = path.join(tmp, 'pkg');
  mkdirSync(pkg);
  execFileSync(
    process.execPath,
    [
      path.join(repoModules, 'typescript/bin/tsc'),
      '-p',
      'tsconfig.build.json',
      '--outDir',
      path.join(pkg, 'dist'),
    ],
    {
      cwd: root,
      stdio: 'pipe',
    },
  );
  cpSync(path.join(root, 'package.json'), path.join(pkg, 'package.json'));
  symlinkSync(repoModules, path.join(pkg, 'node_modules'), 'dir');
  consumer = path.join(tmp, 'consumer');
  const modules = path.join(consumer, 'node_modules');
  mkdirSync(modules, { recursive: true });
  for (const name of readdirSync(repoModules)) {
    if (name !== '.bin') symlinkSync(path.join(repoModules, name), path.join(modules, name), 'dir');
  }
  symlinkSync(pkg, path.join(modules, 'temporal-flow'), 'dir');
}, 180_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Names imported (as values) from the package in the README's and docs' code blocks. */
function documentedImports(): Map<string, Set<string>> {
  const files = ['README.md', ...readdirSync(path.join(root, 'docs')).map((f) => path.join('docs', f))];
  const out = new Map<string, Set<string>>();
  const re = /import\s+(type\s+)?\{([^}]+)\}\s+from\s+'(temporal-flow(?:\/[a-z]+)?)'/g;
  for (const file of files.filter((f) => f.endsWith('.md'))) {
    for (const m of readFileSync(path.join(root, file), 'utf8').matchAll(re)) {
      if (m[1]) continue;
      const names = m[2]!
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '' && !n.startsWith('type '))
        .map((n) => n.split(/\s+as\s+/)[0]!);
      const set = out.get(m[3]!) ?? new Set<string>();
      names.forEach((n) => set.add(n));
      out.set(m[3]!, set);
    }
  }
  return out;
}

describe('the built package, imported as a user does', () => {
  it('every name the README and docs import from temporal-flow exists in the built entry points', () => {
    const imports = documentedImports();
    expect(imports.size).toBeGreaterThan(0);
    const script = `
      const want = ${JSON.stringify(Object.fromEntries([...imports].map(([m, s]) => [m, [...s]])))};
      const missing = [];
      for (const [mod, names] of Object.entries(want)) {
        const m = require(mod);
        for (const n of names) if (!(n in m)) missing.push(mod + ': ' + n);
      }
      console.log(JSON.stringify(missing));`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: consumer, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual([]);
  });

  it('the examples type-check against the built package (no path into src/)', () => {
    const dir = path.join(consumer, 'examples');
    cpSync(path.join(root, 'examples'), dir, { recursive: true });
    // Subfolders too (examples/python/ holds a TypeScript pipeline beside the Python worker).
    const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    expect(sources).toContain(path.join('python', 'image-pipeline.ts'));
    for (const f of sources) {
      expect(readFileSync(path.join(dir, f), 'utf8')).not.toMatch(/from '\.\.\//);
    }
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022', 'ESNext.Disposable'],
          module: 'node16',
          moduleResolution: 'node16',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          esModuleInterop: true,
          types: ['node'],
        },
        include: ['examples'],
      }),
    );
    execFileSync(process.execPath, [path.join(repoModules, 'typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: consumer,
      stdio: 'pipe',
    });
  });

  it('createWorker finds the workflow bundle npm run build writes into dist/ (and only there)', () => {
    const pkg = path.join(tmp, 'pkg');
    const bundlePath = path.join(pkg, 'dist', 'workflow-bundle.js');
    const probe = `const w = require('temporal-flow/worker');
         const b = require(require.resolve('temporal-flow/worker').replace(/index\\.js$/, 'workflow-bundle.js'));
         const found = b.prebuiltWorkflowBundle();
         console.log(JSON.stringify([w.PREBUILT_WORKFLOW_BUNDLE_PATH, found ?? null, found ? b.lacksInterceptorModules(found) : null]));`;
    const run = () =>
      JSON.parse(
        execFileSync(process.execPath, ['-e', probe], { cwd: consumer, encoding: 'utf8' }),
      ) as unknown;
    // tsc alone (this build) writes no bundle: the worker would bundle at start.
    expect(run()).toEqual([bundlePath, null, null]);
    // What build-workflow-bundle.js writes (webpack names each module by its path; the real build runs in
    // `npm run build` and bench/worker-footprint): found, with the interceptor modules.
    writeFileSync(bundlePath, '/* "./dist/workflows/idempotency-interceptor.js" */');
    try {
      expect(run()).toEqual([bundlePath, { codePath: bundlePath }, false]);
    } finally {
      rmSync(bundlePath);
    }
  });

  it('the four entry points load and the package has no path into src/ at runtime', () => {
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        `const a = require('temporal-flow'), w = require('temporal-flow/worker'), d = require('temporal-flow/devserver'), k = require('temporal-flow/testing');
         const srcLoaded = Object.keys(require.cache).filter((f) => f.includes('${path.sep}src${path.sep}') && !f.includes('node_modules'));
         console.log(JSON.stringify([typeof a.pipeline, typeof a.PipelineScheduler, typeof w.createWorker, typeof d.DevServer, typeof k.createPipelineTestEnv, srcLoaded]));`,
      ],
      { cwd: consumer, encoding: 'utf8' },
    );
    expect(JSON.parse(out)).toEqual(['function', 'function', 'function', 'function', 'function', []]);
  });
});
