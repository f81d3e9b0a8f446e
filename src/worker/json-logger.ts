import { DefaultLogger, type LogEntry, type LogLevel } from '@temporalio/worker';

/** Keys every line starts with; metadata cannot overwrite them. */
const RESERVED = new Set(['time', 'level', 'msg']);

/**
 * The SDK's logger, writing one JSON object per line: `{"time", "level", "msg", ...metadata}`. Install it
 * process-wide with `Runtime.install({ logger })` so that the SDK's own lines (worker, `workflow.log`,
 * activity `Context.log`; Core's with `logging.forward`) and temporal-flow's run events ({@link logEvent})
 * go to the same sink, filtered by one level (`TFLOW_LOG_LEVEL` in {@link readEnv}).
 *
 * ```ts
 * Runtime.install({
 *   logger: new JsonLinesLogger(env.logLevel),
 *   telemetryOptions: { logging: { forward: {}, filter: { core: 'WARN', other: 'ERROR' } } },
 * });
 * ```
 */
export class JsonLinesLogger extends DefaultLogger {
  /**
   * @param level lines below it are dropped. @default 'INFO'
   * @param write where each line goes (without its newline). @default standard output
   */
  constructor(level: LogLevel = 'INFO', write: (line: string) => void = writeStdout) {
    super(level, (entry) => write(jsonLine(entry)));
  }
}

function writeStdout(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** One log entry as a JSON line; metadata with Errors, bigints or cycles still gives valid JSON. */
export function jsonLine(entry: LogEntry): string {
  const out: Record<string, unknown> = {
    time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
    level: entry.level.toLowerCase(),
    msg: entry.message,
  };
  // String keys only: the SDK keeps internal values (e.g. its timestamp) under symbols.
  for (const [key, value] of Object.entries(entry.meta ?? {})) {
    if (!RESERVED.has(key) && value !== undefined) out[key] = value;
  }
  const seen = new WeakSet<object>();
  return JSON.stringify(out, (_key, value: unknown) => {
    if (typeof value === 'bigint') return value.toString();
    if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[circular]';
      seen.add(value);
    }
    return value;
  });
}
