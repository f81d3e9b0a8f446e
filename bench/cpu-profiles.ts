/*
 * V8 CPU profiles of this process's threads, for bench/run-profile.bench.ts: the main thread and every
 * worker thread (the SDK's workflow threads) profiled over the same window through the inspector module
 * (the NodeWorker domain reaches the worker threads from the main thread's session), each sample put in a
 * phase of a run (client, payloads, workflow activation, interpreter, interceptors, sinks and logging,
 * activities, ...), and written out as `.cpuprofile` (Chrome DevTools' Performance panel and speedscope
 * open it), folded stacks (flamegraph.pl, inferno, speedscope) and an SVG flame graph.
 *
 * Frames of a workflow bundle (a vm script named `workflow-bundle-<hash>.js`) are put in the module they
 * come from by webpack's module markers (`/***\/ "./src/workflows/run/interpreter.ts"` at the start of
 * each module's lines), so that the sandbox's time is told apart by module without a source map.
 */
import { Session, type Profiler } from 'node:inspector';
import path from 'node:path';

export type CpuProfile = Profiler.Profile;
type ProfileNode = Profiler.ProfileNode;
type CallFrame = ProfileNode['callFrame'];

/** A running profile of the main thread and of every worker thread. */
export class ThreadProfiler {
  private readonly session = new Session();
  /** Inspector session id of each worker thread attached, with its title. */
  private readonly workers = new Map<string, string>();
  private readonly pending = new Map<number, (reply: { result?: unknown; error?: unknown }) => void>();
  private nextId = 0;

  private constructor() {
    this.session.connect();
    this.session.on('NodeWorker.attachedToWorker', (m: { params: Record<string, unknown> }) => {
      const { sessionId, workerInfo } = m.params as { sessionId: string; workerInfo: { title: string } };
      this.workers.set(sessionId, workerInfo.title);
    });
    this.session.on('NodeWorker.detachedFromWorker', (m: { params: Record<string, unknown> }) => {
      this.workers.delete((m.params as { sessionId: string }).sessionId);
    });
    this.session.on('NodeWorker.receivedMessageFromWorker', (m: { params: Record<string, unknown> }) => {
      const reply = JSON.parse((m.params as { message: string }).message) as {
        id?: number;
        result?: unknown;
        error?: unknown;
      };
      if (reply.id !== undefined) {
        this.pending.get(reply.id)?.(reply);
        this.pending.delete(reply.id);
      }
    });
  }

  /** Attaches to this process's main thread and to its worker threads (those alive now and later). */
  static async attach(): Promise<ThreadProfiler> {
    const p = new ThreadProfiler();
    await p.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
    await p.post('Profiler.enable');
    return p;
  }

  /** Starts profiling every thread, sampling every `intervalUs` microseconds. */
  async start(intervalUs: number): Promise<void> {
    // Worker threads attach asynchronously after `NodeWorker.enable`: give them a moment.
    await new Promise((r) => setTimeout(r, 100));
    for (const id of this.workers.keys()) {
      await this.toWorker(id, 'Profiler.enable');
      await this.toWorker(id, 'Profiler.setSamplingInterval', { interval: intervalUs });
      await this.toWorker(id, 'Profiler.start');
    }
    await this.post('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.post('Profiler.start');
  }

  /** Stops every profile: the main thread's and each worker thread's (by its title). */
  async stop(): Promise<{ main: CpuProfile; workers: { title: string; profile: CpuProfile }[] }> {
    const { profile: main } = (await this.post('Profiler.stop')) as { profile: CpuProfile };
    const workers: { title: string; profile: CpuProfile }[] = [];
    for (const [id, title] of this.workers) {
      const reply = (await this.toWorker(id, 'Profiler.stop')) as { profile?: CpuProfile } | undefined;
      if (reply?.profile) workers.push({ title, profile: reply.profile });
    }
    return { main, workers };
  }

  close(): void {
    this.session.disconnect();
  }

  private post(method: string, params: object = {}): Promise<unknown> {
    return new Promise((resolve, reject) =>
      this.session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
    );
  }

  private toWorker(sessionId: string, method: string, params: object = {}): Promise<unknown> {
    const id = ++this.nextId;
    const reply = new Promise<unknown>((resolve, reject) =>
      this.pending.set(id, (r) =>
        r.error ? reject(new Error(`${method}: ${JSON.stringify(r.error)}`)) : resolve(r.result),
      ),
    );
    void this.post('NodeWorker.sendMessageToWorker', {
      sessionId,
      message: JSON.stringify({ id, method, params }),
    });
    return reply;
  }
}

/** The phases of a run a sample is put in, in the order the tables show them. */
export const PHASES = [
  'client: start path, result, gRPC',
  'payloads and protobuf: encode/decode',
  'workflow activation (SDK, both threads)',
  'interpreter (our workflow code)',
  'interceptors (ours and their composition)',
  'sinks and logging',
  'activities (SDK and the steps)',
  'worker (SDK, other)',
  'garbage collection',
  'other (V8, Node internals)',
] as const;
export type Phase = (typeof PHASES)[number];

/** Module markers of a webpack bundle: the line each module starts at (0-based), in order. */
export class BundleIndex {
  private readonly starts: number[] = [];
  private readonly modules: string[] = [];

  constructor(code: string) {
    const lines = code.split('\n');
    for (let i = 0; i < lines.length; i++) {
      const m = /^\/\*\*\*\/ "(.+)"/.exec(lines[i]!);
      if (m) {
        this.starts.push(i);
        this.modules.push(m[1]!);
      }
    }
  }

  /** The module a 0-based line of the bundle belongs to; `(bundle runtime)` before the first module. */
  moduleAt(line: number): string {
    let lo = 0;
    let hi = this.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= line) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? '(bundle runtime)' : this.modules[found]!;
  }
}

/** Reads the frames of profiles: which module a frame is in, and which phase. */
export class FrameReader {
  private readonly root = path.resolve(__dirname, '..');

  /** `bundles`: the code of each workflow bundle the workers run (their vm scripts are told by name). */
  constructor(private readonly bundles: BundleIndex[]) {}

  /** Module of a frame: a path under the repository (`src/...`, `node_modules/...`), a bundle's module, or the url. */
  moduleOf(frame: CallFrame): string {
    const { url, lineNumber } = frame;
    if (/workflow-bundle-[^/]*\.js$/.test(url)) {
      // Every bundle of the process is searched: the two bundles' lines differ, but a module found in the
      // wrong one would still name a module of the same kind (the SDK's, or ours).
      for (const b of this.bundles) {
        const m = b.moduleAt(lineNumber);
        if (m !== '(bundle runtime)') return `bundle:${m.replace(/^\.\//, '')}`;
      }
      return 'bundle:(bundle runtime)';
    }
    const file = url.startsWith('file://') ? url.slice('file://'.length) : url;
    return file.startsWith(this.root) ? path.relative(this.root, file) : file;
  }

  /** The phase of a frame, or undefined when it should take its caller's (natives, Node internals). */
  phaseOf(frame: CallFrame): Phase | undefined {
    const fn = frame.functionName;
    if (fn === '(garbage collector)') return 'garbage collection';
    if (fn === '(program)' || fn === '(root)') return 'other (V8, Node internals)';
    if (fn === 'processSinkCalls' || fn === 'getAndResetSinkCalls') return 'sinks and logging';
    const module = this.moduleOf(frame);
    const inBundle = module.startsWith('bundle:');
    const m = module.replace(/^bundle:/, '');
    if (m === '' || m.startsWith('node:')) return undefined;
    if (
      /^(src|dist)\/worker\/(run-events|json-logger|create-worker)|^(src|dist)\/workflows\/sinks|@temporalio\/worker\/lib\/logger|@temporalio\/workflow\/lib\/(sinks|logs)/.test(
        m,
      )
    ) {
      return 'sinks and logging';
    }
    if (
      /^(src|dist)\/worker\/(attempt-interceptor|step-idempotency|step-retries|worker-tracing)|^(src|dist)\/workflows\/(idempotency|tracing)\/|interceptor/.test(
        m,
      )
    ) {
      return 'interceptors (ours and their composition)';
    }
    if (
      /@temporalio\/common\/lib\/(converter|encoding|failure|internal-non-workflow\/codec)|protobufjs|@temporalio\/proto\/|node_modules\/long\//.test(
        m,
      )
    ) {
      return 'payloads and protobuf: encode/decode';
    }
    // Our modules in a bundle run in the sandbox; outside it, ours are the client's (the worker's are above).
    if (/^(src|dist)\//.test(m) && (inBundle || m.includes('/workflows/')))
      return 'interpreter (our workflow code)';
    if (
      /@temporalio\/workflow\/|@temporalio\/worker\/lib\/workflow\/|\(bundle runtime\)|^bench\/baseline-workflows/.test(
        m,
      )
    ) {
      return 'workflow activation (SDK, both threads)';
    }
    if (
      /^bench\/(noop-steps|burst-steps)|@temporalio\/worker\/lib\/activity|@temporalio\/activity\//.test(m)
    ) {
      return 'activities (SDK and the steps)';
    }
    if (/@temporalio\/client\/|^(src|dist)\/(client|pipeline|parse|errors)|@grpc\/|^bench\//.test(m)) {
      return 'client: start path, result, gRPC';
    }
    if (/@temporalio\/|rxjs|^(src|dist)\//.test(m)) return 'worker (SDK, other)';
    return undefined;
  }
}

/** What a profile says: sampled time by phase, by function (self), under our workflow code, in microseconds. */
export interface ProfileSummary {
  /** Sampled time, idle excluded. */
  totalUs: number;
  byPhase: Record<Phase, number>;
  /** Self time by `function (module:line)`. */
  bySelf: Map<string, number>;
  /** Time with a frame of our workflow code (src/workflows) on the stack, what it called included. */
  underOurWorkflowUs: number;
}

/** The time each sample stands for: the delta to the next sample (the last one: the mean interval). */
function sampleWeights(p: CpuProfile): number[] {
  const deltas = p.timeDeltas ?? [];
  const n = p.samples?.length ?? 0;
  const mean = n > 0 ? (p.endTime - p.startTime) / n : 0;
  return Array.from({ length: n }, (_, i) => deltas[i + 1] ?? mean);
}

function parentsOf(p: CpuProfile): Map<number, ProfileNode | undefined> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode | undefined>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, byId.get(n.id));
  return parent;
}

/** Sums one or more profiles (e.g. the main thread's and the workflow threads') by phase and function. */
export function summarize(profiles: CpuProfile[], reader: FrameReader): ProfileSummary {
  const byPhase = Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>;
  const bySelf = new Map<string, number>();
  let totalUs = 0;
  let underOurWorkflowUs = 0;
  for (const p of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = parentsOf(p);
    const phaseOfNode = new Map<number, Phase>();
    const oursOfNode = new Map<number, boolean>();
    const phaseOf = (node: ProfileNode): Phase => {
      const known = phaseOfNode.get(node.id);
      if (known) return known;
      const up = parent.get(node.id);
      const phase = reader.phaseOf(node.callFrame) ?? (up ? phaseOf(up) : 'other (V8, Node internals)');
      phaseOfNode.set(node.id, phase);
      return phase;
    };
    const underOurs = (node: ProfileNode): boolean => {
      const known = oursOfNode.get(node.id);
      if (known !== undefined) return known;
      const up = parent.get(node.id);
      const ours =
        /workflows\/(?!idempotency|tracing)/.test(reader.moduleOf(node.callFrame)) ||
        (up ? underOurs(up) : false);
      oursOfNode.set(node.id, ours);
      return ours;
    };
    const weights = sampleWeights(p);
    (p.samples ?? []).forEach((id, i) => {
      const node = byId.get(id)!;
      if (node.callFrame.functionName === '(idle)') return;
      const us = weights[i]!;
      totalUs += us;
      byPhase[phaseOf(node)] += us;
      if (underOurs(node)) underOurWorkflowUs += us;
      const key = frameName(node.callFrame, reader);
      bySelf.set(key, (bySelf.get(key) ?? 0) + us);
    });
  }
  return { totalUs, byPhase, bySelf, underOurWorkflowUs };
}

function frameName(frame: CallFrame, reader: FrameReader): string {
  const module = reader.moduleOf(frame);
  const where = module ? ` (${module.replace(/^bundle:/, 'bundle: ')}:${frame.lineNumber + 1})` : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

/** The profile as folded stacks, `root;...;leaf <microseconds>` a line: flamegraph.pl, inferno, speedscope read it. */
export function foldedStacks(p: CpuProfile, reader: FrameReader): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = parentsOf(p);
  const stacks = new Map<string, number>();
  const weights = sampleWeights(p);
  (p.samples ?? []).forEach((id, i) => {
    const frames: string[] = [];
    for (let n: ProfileNode | undefined = byId.get(id); n; n = parent.get(n.id)) {
      if (n.callFrame.functionName !== '(root)')
        frames.push(frameName(n.callFrame, reader).replace(/;/g, ','));
    }
    if (frames[0]?.startsWith('(idle)')) return;
    const key = frames.reverse().join(';');
    stacks.set(key, (stacks.get(key) ?? 0) + weights[i]!);
  });
  return [...stacks].map(([k, us]) => `${k} ${Math.round(us)}`).join('\n') + '\n';
}

const PHASE_COLOURS: Record<Phase, string> = {
  'client: start path, result, gRPC': '#8fb8de',
  'payloads and protobuf: encode/decode': '#e8a33d',
  'workflow activation (SDK, both threads)': '#c9c9c9',
  'interpreter (our workflow code)': '#e0573a',
  'interceptors (ours and their composition)': '#d88fd1',
  'sinks and logging': '#9bd47a',
  'activities (SDK and the steps)': '#f2dd6e',
  'worker (SDK, other)': '#a7a7d9',
  'garbage collection': '#777777',
  'other (V8, Node internals)': '#e6e6e6',
};

interface FlameNode {
  name: string;
  phase: Phase;
  us: number;
  children: Map<string, FlameNode>;
}

const escapeXml = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * An SVG flame graph of one or more profiles (root at the bottom, a frame's width its time with what it
 * called, coloured by phase; hover a frame for its name and time). Frames under 0.1% of the time are left out.
 */
export function flameGraphSvg(
  profiles: { label: string; profile: CpuProfile }[],
  reader: FrameReader,
  title: string,
): string {
  const root: FlameNode = { name: title, phase: 'other (V8, Node internals)', us: 0, children: new Map() };
  for (const { label, profile: p } of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = parentsOf(p);
    const weights = sampleWeights(p);
    (p.samples ?? []).forEach((id, i) => {
      const path: ProfileNode[] = [];
      for (let n: ProfileNode | undefined = byId.get(id); n; n = parent.get(n.id)) path.push(n);
      if (path[0]?.callFrame.functionName === '(idle)') return;
      path.reverse();
      const us = weights[i]!;
      root.us += us;
      let at = root;
      let phase: Phase = 'other (V8, Node internals)';
      for (const n of [
        {
          callFrame: { functionName: label, url: '', lineNumber: 0, columnNumber: 0, scriptId: '' },
        } as ProfileNode,
        ...path.slice(1),
      ]) {
        phase = reader.phaseOf(n.callFrame) ?? phase;
        const name = frameName(n.callFrame, reader);
        let child = at.children.get(name);
        if (!child) at.children.set(name, (child = { name, phase, us: 0, children: new Map() }));
        child.us += us;
        at = child;
      }
    });
  }
  const width = 1600;
  const row = 16;
  const min = root.us / 1000;
  const rects: { x: number; depth: number; w: number; node: FlameNode }[] = [];
  let maxDepth = 0;
  const lay = (node: FlameNode, x: number, depth: number) => {
    rects.push({ x, depth, w: (node.us / root.us) * width, node });
    maxDepth = Math.max(maxDepth, depth);
    let cx = x;
    for (const c of [...node.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      if (c.us >= min) lay(c, cx, depth + 1);
      cx += (c.us / root.us) * width;
    }
  };
  lay(root, 0, 0);
  const legendRows = PHASES.length;
  const height = (maxDepth + 1) * row + 40 + legendRows * row;
  const body = rects
    .map(({ x, depth, w, node }) => {
      const y = (maxDepth - depth) * row + 30;
      const label = w > 40 ? escapeXml(node.name.slice(0, Math.floor(w / 6.5))) : '';
      const ms = (node.us / 1000).toFixed(1);
      const pct = ((node.us / root.us) * 100).toFixed(1);
      return `<g><title>${escapeXml(node.name)}: ${ms} ms (${pct}%), ${node.phase}</title><rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(w - 0.5, 0.5).toFixed(1)}" height="${row - 1}" fill="${PHASE_COLOURS[node.phase]}"/>${label ? `<text x="${(x + 3).toFixed(1)}" y="${y + 11}">${label}</text>` : ''}</g>`;
    })
    .join('\n');
  const legendTop = (maxDepth + 1) * row + 40;
  const legend = PHASES.map(
    (p, i) =>
      `<rect x="0" y="${legendTop + i * row}" width="12" height="12" fill="${PHASE_COLOURS[p]}"/><text x="16" y="${legendTop + i * row + 10}">${escapeXml(p)}</text>`,
  ).join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11">
<text x="0" y="16" font-size="14">${escapeXml(title)}: ${(root.us / 1000).toFixed(0)} ms sampled (idle left out)</text>
${body}
${legend}
</svg>
`;
}
