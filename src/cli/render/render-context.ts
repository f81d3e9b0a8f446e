import pc from 'picocolors';
import type { TflowEnv } from '../../config';

/**
 * What a render function needs to know of where its text goes, so that tests render exactly what a
 * terminal shows: `isTTY` picks tables and cards (else the tab-separated lines scripts read), `color`
 * turns ANSI colors on, `now` anchors relative times ("in 2 h 13 min").
 */
export interface RenderContext {
  isTTY: boolean;
  color: boolean;
  now: Date;
  /** Zone of times that belong to no job (runs, dead letters): the user's own. */
  zone: string;
}

/** The context of a real run: stdout's TTY-ness and the color setting (NO_COLOR / FORCE_COLOR). */
export function processRenderContext(env: Pick<TflowEnv, 'color'>, stream = process.stdout): RenderContext {
  const isTTY = stream.isTTY === true;
  return {
    isTTY,
    color: env.color === 'always' || (env.color === 'auto' && isTTY),
    now: new Date(),
    zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  };
}

/** The colors of a context: picocolors' functions, each the identity when color is off. */
export type Paint = ReturnType<typeof pc.createColors>;

export function paint(ctx: Pick<RenderContext, 'color'>): Paint {
  return pc.createColors(ctx.color);
}

/** Colors a run or job status: failed red, skipped, paused and retrying yellow, running cyan, completed green. */
export function paintStatus(status: string, p: Paint): string {
  if (/^(failed|timed-out|terminated)/.test(status)) return p.red(status);
  if (/^(skipped|paused|cancelled|retrying)/.test(status)) return p.yellow(status);
  if (status.startsWith('running') || status === 'compensating') return p.cyan(status);
  if (status === 'completed') return p.green(status);
  return status;
}
