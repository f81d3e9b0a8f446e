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
  {
    // Workflow code runs in Temporal's deterministic sandbox and is replayed: no Node built-ins, no I/O,
    // and only type imports from the non-workflow Temporal packages.
    files: ['src/workflows/**/*.ts', 'src/pipeline/**/*.ts', 'src/schedule/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...nodeBuiltins.map((name) => ({
              name,
              message: 'Workflow-safe code cannot use Node built-ins.',
            })),
            ...['client', 'worker', 'activity', 'testing'].map((pkg) => ({
              name: `@temporalio/${pkg}`,
              allowTypeImports: true,
              message: 'Workflow-safe code may import this package with `import type` only.',
            })),
          ],
          patterns: [
            { group: ['node:*'], message: 'Workflow-safe code cannot use Node built-ins.' },
            {
              group: ['**/activities/*', '**/client/*', '**/worker/*', '**/devserver/*', '**/cli/*'],
              allowTypeImports: true,
              message: 'Workflow-safe code may import these folders with `import type` only.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
