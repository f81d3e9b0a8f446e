import fc from 'fast-check';
import { TemporalFlowError } from '../../src/errors';

/*
 * Shared settings of the property-based (fuzz) tests. FUZZ_SEED replays a failing run (fast-check prints
 * the seed and path of every failure); FUZZ_RUNS replaces each property's own number of cases. The long
 * run, `npm run fuzz` (FUZZ_RUNS=5000), is documented in docs/testing.md.
 */

const seedText = process.env.FUZZ_SEED;
const runsText = process.env.FUZZ_RUNS;

/**
 * The suite's fixed seed: `npm test` explores the same cases every run, so main stays green unless code
 * changes (new bugs are hunted by `npm run fuzz`, which sets FUZZ_SEED=random).
 */
const SUITE_SEED = 20261201;

/** The seed of this run: FUZZ_SEED (a number, or `random` for a fresh one), else {@link SUITE_SEED}. */
export const FUZZ_SEED =
  seedText === 'random'
    ? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
    : seedText
      ? Number(seedText)
      : SUITE_SEED;

/** Cases per property: FUZZ_RUNS when set, else the property's default. */
export function fuzzRuns(defaultRuns: number): number {
  const runs = runsText ? Number(runsText) : defaultRuns;
  if (!Number.isInteger(runs) || runs < 1)
    throw new Error(`FUZZ_RUNS must be a whole number, got ${runsText}`);
  return runs;
}

/** fast-check parameters: the run's seed, the cases, and a wall-clock cap on the whole property. */
export function fuzzParams<T>(defaultRuns: number, extra: fc.Parameters<T> = {}): fc.Parameters<T> {
  const numRuns = fuzzRuns(defaultRuns);
  return {
    seed: FUZZ_SEED,
    numRuns,
    // A cap on the whole property, well above its normal time: stopping early is reported as a failure.
    interruptAfterTimeLimit: 30_000 + numRuns * 50,
    markInterruptAsFailure: true,
    ...extra,
  };
}

/**
 * Most CPU time one case of a pure parser may use: far above normal (well under 1 ms), far below a hang.
 * CPU time of this process, not wall-clock time: a loaded machine (other processes, other test files)
 * slows the clock but not the work, and a wall-clock budget failed cases under a load average of 20.
 */
export const CASE_BUDGET_MS = 1000;

/**
 * Runs `f` and returns `ok` or the typed error it threw. Anything else (a TypeError, a RangeError from a
 * blown stack, an error without a `field`) and any call using more than `budgetMs` of CPU fails the case.
 */
export function typedOutcome(
  f: () => unknown,
  budgetMs = CASE_BUDGET_MS,
): { ok: true; value: unknown } | { ok: false; error: TemporalFlowError } {
  const started = process.cpuUsage();
  let result: { ok: true; value: unknown } | { ok: false; error: TemporalFlowError };
  try {
    result = { ok: true, value: f() };
  } catch (err) {
    if (!(err instanceof TemporalFlowError)) throw err;
    const field = (err as TemporalFlowError & { field?: unknown }).field;
    if (typeof field !== 'string' || field === '') {
      throw new Error(`${err.name} has no field: ${err.message}`, { cause: err });
    }
    if (err.message.length === 0 || err.message.length > 4000) {
      throw new Error(`${err.name} message of ${err.message.length} characters`, { cause: err });
    }
    result = { ok: false, error: err };
  }
  const used = process.cpuUsage(started);
  const took = (used.user + used.system) / 1000;
  if (took > budgetMs) throw new Error(`used ${took.toFixed(0)} ms of CPU (budget ${budgetMs} ms)`);
  return result;
}

/** Any JSON-ish or JS value, bounded in depth and size, BigInts and odd prototypes included. */
export const anyValue: fc.Arbitrary<unknown> = fc.anything({
  maxDepth: 3,
  maxKeys: 6,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
});

/** Short strings biased towards the characters our parsers treat specially. */
export const trickyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom(...'0123456789*/-,? #LW@ \t\nMONJAFEBsmhdwy.:+Z'.split('')),
    maxLength: 40,
  }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

/**
 * Mutates a valid string: inserts, deletes, duplicates or replaces characters, or splices in a tricky
 * piece (huge numbers, negative numbers, Quartz syntax), so that most results are almost valid.
 */
export function mutated(valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const piece = fc.oneof(
    trickyString,
    fc.constantFrom(
      '9'.repeat(30),
      '4294967297',
      '-1',
      '1e3',
      '0x10',
      'L',
      '5W',
      'MON#2',
      '?',
      '*/0',
      ',',
      '--',
      '//',
      ' ',
      '\u00a0',
      '\u0661',
    ),
  );
  const edit = fc.record({ at: fc.nat(), len: fc.nat({ max: 4 }), piece, kind: fc.nat({ max: 3 }) });
  return fc.tuple(valid, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([text, edits]) =>
    edits.reduce((s, { at, len, piece: p, kind }) => {
      const i = s.length === 0 ? 0 : at % (s.length + 1);
      if (kind === 0) return s.slice(0, i) + p + s.slice(i); // insert
      if (kind === 1) return s.slice(0, i) + s.slice(i + len); // delete
      if (kind === 2) return s.slice(0, i) + s.slice(i, i + len).repeat(3) + s.slice(i + len); // duplicate
      return s.slice(0, i) + p + s.slice(i + len); // replace
    }, text),
  );
}

type Path = (string | number)[];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function pathsOf(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...at, i], out));
  else if (isPlainObject(value)) {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...at, k], out);
  }
  return out;
}

function copyOf(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

function cloneJson<T>(value: T): T {
  return value instanceof Date || typeof value !== 'object' || value === null
    ? value
    : Array.isArray(value)
      ? (value.map(cloneJson) as T)
      : (Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cloneJson(v)])) as T);
}

/**
 * Mutates a valid object 1-3 times at random places: a value replaced by anything, a key deleted, an
 * unknown key added, an array emptied or grown. The result is almost valid, which is where parsers slip.
 */
export function mutatedObject<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  const edit = fc.record({
    where: fc.nat(),
    kind: fc.constantFrom('replace', 'delete', 'add', 'empty', 'grow'),
    key: fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('__proto__', 'constructor', 'start', 'kind', 'id'),
    ),
    value: anyValue,
  });
  return fc.tuple(valid, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([v, edits]) => {
    let root: unknown = cloneJson(v);
    for (const { where, kind, key, value: generated } of edits) {
      // A copy: fast-check reuses generated values while shrinking, and later edits must not reach them.
      const value = copyOf(generated);
      const paths = pathsOf(root);
      const path = paths[where % paths.length]!;
      if (path.length === 0) {
        if (kind === 'replace') root = value;
        continue;
      }
      type Node = Record<string | number, unknown> & unknown[];
      const parent = path.slice(0, -1).reduce((o, k) => (o as Node)[k], root) as Node;
      const last = path[path.length - 1]!;
      const target = parent[last];
      if (kind === 'replace') parent[last] = value;
      else if (kind === 'delete') {
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete parent[last];
      } else if (kind === 'add' && isPlainObject(target)) {
        Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
      } else if (kind === 'empty' && Array.isArray(target)) target.length = 0;
      else if (kind === 'grow' && Array.isArray(target)) target.push(value, cloneJson(target[0]));
      else parent[last] = value;
    }
    return root;
  });
}
