/*
 * CPU time of another process, for benchmarks: the Temporal server's, found by the port it listens on
 * (Linux /proc only; elsewhere the figures are reported as unavailable).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** Socket inodes listening on `port` (IPv4 and IPv6), from /proc/net/tcp*. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // cols[1] = local address:port (hex), cols[3] = state (0A = LISTEN), cols[9] = inode
      if (cols.length > 9 && cols[3] === '0A' && parseInt(cols[1]!.split(':').pop()!, 16) === port) {
        inodes.add(cols[9]!);
      }
    }
  }
  return inodes;
}

/** The pid of the process listening on `port`, or undefined when it cannot be seen (other user, no /proc). */
export function pidListeningOn(port: number): number | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${entry}/fd/${fd}`));
        if (m && inodes.has(m[1]!)) return Number(entry);
      } catch {
        // the fd closed meanwhile
      }
    }
  }
  return undefined;
}

/** The resident memory of `pid` in MB (VmRSS of /proc/<pid>/status); NaN when not shown. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** User + system CPU milliseconds `pid` has used so far (all its threads), from /proc/<pid>/stat. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** CPU milliseconds this process has used so far (all threads, the SDK's Rust core included). */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/**
 * CPU milliseconds each thread of this process has used so far, keyed `<tid> <name>` (Linux: from
 * /proc/self/task; empty elsewhere). The main thread's tid is the pid. Threads that end between the
 * listing and the read are left out.
 */
export function ownThreadsCpuMs(): Map<string, number> {
  const threads = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return threads;
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    threads.set(`${tid} ${name}`, ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
  }
  return threads;
}
