import path from 'node:path';
import ts from 'typescript';

/*
 * The package's own names (`temporal-flow`, `temporal-flow/worker`, ...) resolve to src/, as tsx and tsc
 * resolve them through tsconfig.json's `paths`: without this, vitest follows package.json's `exports` into
 * dist/, which only `npm run build` writes, and a fresh clone's `npm test` fails. The built package itself is
 * tested by the `package` project, which builds it into a temporary folder. Shared by every vitest config
 * (`npm test`, `npm run test:cluster`, `npm run test:tracing`).
 */
const { config: tsconfig, error } = ts.readConfigFile(path.join(import.meta.dirname, 'tsconfig.json'), (f) =>
  ts.sys.readFile(f),
);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const paths = (tsconfig as { compilerOptions: { paths: Record<string, [string]> } }).compilerOptions.paths;
export const resolve = {
  // Exact names only: a plain string would also match `temporal-flow/worker` as a prefix of `temporal-flow`.
  alias: Object.entries(paths).map(([name, [target]]) => ({
    find: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`),
    replacement: path.resolve(import.meta.dirname, target),
  })),
};
