/*
 * Compiles a bench's worker process to JavaScript for plain `node`, as a user runs a compiled worker:
 * esbuild bundles the file and what it imports by relative path (e.g. examples/steps.ts); `temporal-flow`
 * and every other package stay imports that node resolves (the package's own exports point at dist/).
 * tsconfig.build.json has no `paths`, so `temporal-flow` is not mapped to src/. The output goes to
 * .tflow/bench/ (local state, ignored by git, eslint and prettier, and outside the published dist/).
 */
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(__dirname, '..');

/** Compiles `bench/<name>.ts` to `.tflow/bench/<name>.js` and returns that path. */
export async function compileForNode(name: string): Promise<string> {
  const outfile = path.join(root, '.tflow/bench', `${name}.js`);
  await build({
    entryPoints: [path.join(__dirname, `${name}.ts`)],
    outfile,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    tsconfig: path.join(root, 'tsconfig.build.json'),
    logLevel: 'warning',
  });
  return outfile;
}
