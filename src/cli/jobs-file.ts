import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { InvalidArgumentError } from '../errors';
import type { JobSet, JobSetDefinition } from '../client/jobs/job-plan-types';
import { toJobSet } from '../client/jobs/job-set';

/*
 * Reads a jobs file for `tflow plan` / `tflow apply`: a TypeScript or JavaScript module whose default
 * export (or `jobs` export) is a `defineJobs(...)` set, or a JSON or YAML document with the same shape
 * (`pipelines` then hold pipeline specs, as `tflow runs show --json` prints them).
 */

const MODULE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'];

/**
 * Loads a TypeScript or JavaScript module with tsx (the loader the project's scripts use), registered for
 * the whole process rather than in a namespace of its own: the file's `temporal-flow` must be the CLI's
 * own copy, or its pipelines would not be recognised as pipelines.
 */
function loadModule(file: string): unknown {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only for a module jobs file
    (require('tsx/cjs/api') as { register: () => unknown }).register();
  } catch (err) {
    throw new InvalidArgumentError(
      'file',
      `${file}: loading a TypeScript or JavaScript jobs file needs tsx (npm install --save-dev tsx); or write the jobs file as JSON or YAML`,
      { cause: err },
    );
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a jobs file is loaded at run time
    return require(file) as unknown;
  } catch (err) {
    throw new InvalidArgumentError(
      'file',
      `${file} could not be loaded: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}

/** The set a module exports: its default export, else its `jobs` export. */
function exportedSet(file: string, mod: unknown): unknown {
  const m = mod as { default?: unknown; jobs?: unknown } | undefined;
  const value = m?.default ?? m?.jobs;
  // A CommonJS default export seen through an ES module wrapper.
  const inner = (value as { default?: unknown } | undefined)?.default;
  const found = inner !== undefined && typeof (value as { set?: unknown }).set !== 'string' ? inner : value;
  if (found === undefined) {
    throw new InvalidArgumentError(
      'file',
      `${file} exports no jobs: export default defineJobs({ set, pipelines, jobs }) (or export const jobs = ...)`,
    );
  }
  return found;
}

/**
 * Reads and checks a jobs file.
 *
 * @throws InvalidArgumentError (field `file`) when it is missing or cannot be read; JobSetError for bad jobs.
 */
export function loadJobsFile(given: string, cwd = process.cwd()): JobSet {
  const file = path.resolve(cwd, given);
  if (!existsSync(file)) {
    throw new InvalidArgumentError('file', `no jobs file at ${given} (looked at ${file})`);
  }
  const ext = path.extname(file).toLowerCase();
  let value: unknown;
  if (MODULE_EXTENSIONS.includes(ext)) {
    value = exportedSet(given, loadModule(file));
  } else if (ext === '.json' || ext === '.yaml' || ext === '.yml') {
    const text = readFileSync(file, 'utf8');
    try {
      value = ext === '.json' ? JSON.parse(text) : parseYaml(text);
    } catch (err) {
      throw new InvalidArgumentError(
        'file',
        `${given} is not valid ${ext === '.json' ? 'JSON' : 'YAML'}: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
  } else {
    throw new InvalidArgumentError(
      'file',
      `${given}: a jobs file is a TypeScript/JavaScript module (${MODULE_EXTENSIONS.join(', ')}), JSON or YAML`,
    );
  }
  return toJobSet(value as JobSetDefinition);
}
