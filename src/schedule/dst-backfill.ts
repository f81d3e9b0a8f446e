import { compileDstPolicy, firesIn, SPAN_MARGIN, withEntries, type CompiledDst } from './dst-compile';
import { FireTimes } from './fire-times';
import { policySpans, policyTimes, type DstPolicy, type PolicySpan } from './dst-policy';

/*
 * A backfill under a DST policy. Temporal backfills a window by walking the schedule's spec over it, and
 * the policy's entries in that spec are compiled from the job's last write onwards (dst-compile.ts): a
 * window before the write gets Temporal's own behaviour. So the window is compiled through the same path
 * (compileDstPolicy, from the window's start): its entries go into the spec before the backfill, and the
 * window is cut into parts that hold exactly the policy's times of the sequence the server walks with
 * them. Each fire the policy does not run ends a part and the next part starts just after it, so Temporal
 * never starts that run (there is nothing for the run guard to skip); and each part starts where the
 * server's walk passes (just after one of its fires, or on its ordinary times, away from a clock change),
 * so the server fires in the part what FireTimes walked. Far from clock changes the window is one part,
 * Temporal's window as given.
 */

/** One backfill request: Temporal fires the spec's times in `[startMs, endMs]`. */
export interface BackfillPart {
  startMs: number;
  endMs: number;
}

/** A backfill of a window under a DST policy. */
export interface DstBackfill {
  /** The policy compiled for the window: entries the schedule's spec needs, the skips of its runs. */
  dst: CompiledDst;
  /** The backfill requests, in order: with the entries, the server fires exactly the policy's times. */
  parts: BackfillPart[];
}

/** The stretches around clock changes where the server's sequence may leave its ordinary times, merged. */
function regionsOf(spans: readonly PolicySpan[]): [number, number][] {
  const out: [number, number][] = [];
  for (const s of [...spans].sort((x, y) => x.i0 - y.i0)) {
    const [r0, r1] = [s.i0 - SPAN_MARGIN, s.i1 + SPAN_MARGIN];
    const last = out[out.length - 1];
    // firesIn walks from a margin before a region: regions that close cannot be walked apart.
    if (last && r0 - SPAN_MARGIN < last[1]) last[1] = Math.max(last[1], r1);
    else out.push([r0, r1]);
  }
  return out;
}

/**
 * The backfill of `[startMs, endMs]` (Temporal's window: both ends included) for a trigger whose DST
 * policy is `policy`: what the spec needs and the parts to ask for, so that the runs started are the
 * policy's times in the window, as `preview` lists them.
 *
 * A part ends at each fire the policy leaves out: about one more part per clock change in the window
 * (Temporal holds up to 1,000 pending requests per schedule).
 *
 * @throws InvalidPolicyError when the server cannot run the policy's times (as for the job's horizon).
 */
export function planDstBackfill(
  fire: FireTimes,
  policy: DstPolicy,
  startMs: number,
  endMs: number,
): DstBackfill {
  // Temporal fires the nominal times (whole seconds) in [startMs, endMs]: those in (a, b].
  const a = Math.ceil(startMs / 1000) - 1;
  const b = Math.floor(endMs / 1000);
  const dst = compileDstPolicy(fire, policy, a, b);
  const model = new FireTimes(withEntries(fire.spec, dst.entries));
  const regions = regionsOf(policySpans(fire, policy, a, b)).filter(([r0, r1]) => r1 > a && r0 <= b);
  const parts: BackfillPart[] = [];
  // The ms from which a part is open: the times the server fires from there on are the policy's.
  let open: number | undefined = regions.some(([r0, r1]) => r0 <= a && a < r1) ? undefined : startMs;
  const close = (untilMs: number) => {
    const end = Math.min(untilMs, endMs);
    // The first time the server fires in the part: Temporal walks from just before its start.
    const first = open === undefined ? undefined : model.next(Math.ceil(open / 1000) - 1);
    if (open !== undefined && first !== undefined && first * 1000 <= end) {
      parts.push({ startMs: open, endMs: end });
    }
    open = undefined;
  };
  for (const [r0, r1] of regions) {
    const wanted = new Set(policyTimes(fire, policy, Math.max(a, r0 - 1), Math.min(b, r1 - 1)));
    let prev: number | undefined;
    for (const t of firesIn(model, r0, r1)) {
      if (t > b) break;
      // A part opens just after the fire before a wanted one (a region starts on ordinary times).
      if (wanted.has(t)) open ??= prev === undefined ? r0 * 1000 : prev * 1000 + 1;
      else if (open !== undefined) close(t * 1000 - 1); // jitter never delays a run to the next time
      prev = t;
    }
    // Past the region the server is back on its ordinary times, which the policy runs.
    open ??= prev === undefined ? r0 * 1000 : prev * 1000 + 1;
  }
  close(endMs);
  return { dst, parts };
}
