// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'tls',
  'timers',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

// Import fence (feature folders): one `no-restricted-imports` per source folder (ESLint keeps the last
// block's options for a rule, so each folder's block carries every restriction it has):
// - the sandbox (workflow-safe code: no Node built-ins, Temporal's non-workflow packages as types only);
// - layers: no folder imports one of a higher layer (ROLE_LAYERS, lowest first);
// - features: inside a role, a feature imports itself, the role root and the features below it only
//   (FEATURES: feature -> the features it may use); the role's root files import no feature, except its
//   entry points (ROLE_ENTRIES), which no feature imports.
import fs from 'node:fs';
import path from 'node:path';

const ROLE_LAYERS = [
  ['src/errors'],
  ['src/parse', 'src/codec'],
  ['src/config', 'src/schedule', 'src/pipeline'],
  ['src/workflows'],
  ['src/client'],
  ['src/activities', 'src/setup'],
  ['src/devserver', 'src/worker', 'src/index'],
  ['src/cli', 'src/testing'],
];
const FEATURES = {
  'src/client': { 'dead-letters': [], runs: ['dead-letters'], jobs: ['runs', 'dead-letters'] },
  'src/workflows': {
    run: [],
    idempotency: ['run'],
    semaphore: ['run'],
    alerts: ['run'],
    'dead-letters': ['run'],
    'flow-control': ['run'],
    guards: ['run', 'semaphore', 'alerts'],
    tracing: ['idempotency'],
  },
  'src/activities': { semaphore: [], guards: [], 'dead-letters': [], alerts: [] },
};
const ROLE_ENTRIES = {
  'src/workflows': ['index', 'pipeline-workflow', 'alert-workflows'],
  'src/activities': ['scheduler-activities'],
};
const SANDBOXED = ['src/workflows', 'src/pipeline', 'src/schedule'];

const sandboxPaths = [
  ...nodeBuiltins.map((name) => ({ name, message: 'Workflow-safe code cannot use Node built-ins.' })),
  ...['client', 'worker', 'activity', 'testing'].map((pkg) => ({
    name: `@temporalio/${pkg}`,
    allowTypeImports: true,
    message: 'Workflow-safe code may import this package with `import type` only.',
  })),
];
const sandboxPatterns = [{ group: ['node:*'], message: 'Workflow-safe code cannot use Node built-ins.' }];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A pattern refusing, from a file of `dir`, any import of `target` (a folder, or a file without extension). */
function refuse(dir, target, message) {
  let rel = path.posix.relative(dir, target);
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return { regex: `^${escape(rel)}(\\.[jt]s)?(/.*)?$`, message };
}
const inside = (dir, root) => dir === root || dir.startsWith(`${root}/`);

/**
 * Every restriction of a unit: the files directly in a folder (`unit` = the folder), or one root file of
 * a layer (`unit` = `src/config`, say); `entry` for a role's entry points.
 */
function restrictionsOf(unit, dir, entry) {
  const patterns = [];
  const level = ROLE_LAYERS.findIndex((roles) => roles.some((r) => inside(unit, r)));
  for (const roles of ROLE_LAYERS.slice(level + 1)) {
    for (const r of roles) {
      patterns.push(
        refuse(dir, r, `${unit} may not import ${r}: it is a higher layer (see docs/ARCHITECTURE.md).`),
      );
    }
  }
  for (const [role, features] of Object.entries(FEATURES)) {
    if (!inside(unit, role)) continue;
    const feature = unit === role ? undefined : unit.slice(role.length + 1).split('/')[0];
    if (entry) continue;
    for (const f of Object.keys(features)) {
      if (feature && (f === feature || features[feature].includes(f))) continue;
      const message = feature
        ? `${role}/${feature} may not import ${role}/${f}: a feature uses only the features below it (see docs/ARCHITECTURE.md).`
        : `the root files of ${role} may not import its features (see docs/ARCHITECTURE.md).`;
      patterns.push(refuse(dir, `${role}/${f}`, message));
    }
    if (feature) {
      for (const e of ROLE_ENTRIES[role] ?? []) {
        patterns.push(
          refuse(dir, `${role}/${e}`, `${role}/${e}.ts is an entry point of ${role}: no feature imports it.`),
        );
      }
      const up = path.posix.relative(dir, role) || '.';
      patterns.push({
        regex: `^${escape(up)}(/index)?$`,
        message: `import the file you need, not the index of ${role}.`,
      });
    }
  }
  // A sub-feature (jobs/store) imports none of the files of the feature above it.
  if (unit === 'src/client/jobs/store') {
    patterns.push({
      regex: '^\\.\\./[^./][^/]*$',
      message: 'jobs/store may not import the jobs/ files above it.',
    });
  }
  const sandboxed = SANDBOXED.some((r) => inside(unit, r));
  return sandboxed
    ? { paths: sandboxPaths, patterns: [...sandboxPatterns, ...patterns] }
    : { paths: [], patterns };
}

function sourceDirs(dir = 'src') {
  const here = path.join(import.meta.dirname, dir);
  const subs = fs.readdirSync(here, { withFileTypes: true }).filter((e) => e.isDirectory());
  return [dir, ...subs.flatMap((e) => sourceDirs(`${dir}/${e.name}`))];
}

const block = (files, ignores, r) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { paths: r.paths, patterns: r.patterns }] },
});

/** One block per source folder (for the files directly in it), per root file of src, per entry point. */
function fenceBlocks() {
  const rootFiles = fs
    .readdirSync(path.join(import.meta.dirname, 'src'))
    .filter((n) => n.endsWith('.ts'))
    .map((n) => `src/${n.replace(/\.ts$/, '')}`);
  return [
    ...rootFiles.map((u) => block([`${u}.ts`], [], restrictionsOf(u, 'src', false))),
    ...sourceDirs()
      .filter((d) => d !== 'src')
      .flatMap((dir) => {
        const entries = (ROLE_ENTRIES[dir] ?? []).map((e) => `${dir}/${e}.ts`);
        return [
          block([`${dir}/*.ts`], entries, restrictionsOf(dir, dir, false)),
          ...(entries.length ? [block(entries, [], restrictionsOf(dir, dir, true))] : []),
        ];
      }),
  ];
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.tflow/**',
      'coverage/**',
      '**/*.mjs',
      'vitest.config.mts',
      'vitest.cluster.config.mts',
      'vitest.tracing.config.mts',
      'vitest.resolve.mts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A forgotten `await` on a Temporal API is a real bug, never a style choice.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/only-throw-error': 'off',
    },
  },
  ...fenceBlocks(),
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
