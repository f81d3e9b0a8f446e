import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logLines, writeScript } from '../helpers/fake-commands';
import { ensurePromtool, PromtoolNotFoundError, promtoolIn } from '../helpers/promtool';

let dir: string;

/** A stand-in promtool that answers `--version` as promtool does (several lines), saying where it lives. */
const fakePromtool = (file: string) =>
  writeScript(file, `echo "promtool, version 2.42.0 (${file})"; echo "  go version: go1.19"`);

/**
 * A stand-in apt-get and dpkg-deb logging their arguments to `tools.log`: `download` writes a .deb in the
 * folder it runs in, unless `needsUpdate` and no `update` ran yet (it then fails as Debian's does without a
 * package list); `dpkg-deb -x DEB DIR` writes a promtool under DIR.
 */
async function fakeTools(opts: { needsUpdate?: boolean } = {}): Promise<{ aptGet: string; dpkgDeb: string }> {
  const log = path.join(dir, 'tools.log');
  const updated = path.join(dir, 'apt.updated');
  const aptGet = await writeScript(
    path.join(dir, 'tools', 'apt-get'),
    [
      'shift 2', // -o DPkg::Lock::Timeout=300
      `echo "apt-get $*" >> ${log}`,
      `if [ "$1" = update ]; then touch ${updated}; exit 0; fi`,
      opts.needsUpdate
        ? `if [ ! -e ${updated} ]; then echo "E: Unable to locate package prometheus" >&2; exit 100; fi`
        : '',
      'echo deb > prometheus_2.42.0_amd64.deb',
    ].join('\n'),
  );
  const dpkgDeb = await writeScript(
    path.join(dir, 'tools', 'dpkg-deb'),
    [
      `echo "dpkg-deb $1 $(basename "$2") $3" >> ${log}`,
      'mkdir -p "$3/usr/bin"',
      `printf '#!/bin/sh\\necho "promtool, version 2.42.0 (unpacked)"\\n' > "$3/usr/bin/promtool"`,
      'chmod 755 "$3/usr/bin/promtool"',
    ].join('\n'),
  );
  return { aptGet, dpkgDeb };
}

const toolCalls = async () => logLines(path.join(dir, 'tools.log'));
const quiet = () => undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-promtool-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('ensurePromtool: PROMTOOL, then PATH, then the unpacked package, else Debian’s unpacked', () => {
  it('prefers PROMTOOL over PATH, and keeps the first line of --version', async () => {
    const explicit = await fakePromtool(path.join(dir, 'explicit', 'promtool'));
    const onPath = await fakePromtool(path.join(dir, 'bin', 'promtool'));
    const found = await ensurePromtool({
      explicitPath: explicit,
      searchPath: path.dirname(onPath),
      installDir: path.join(dir, 'prometheus'),
    });
    expect(found).toEqual({
      path: explicit,
      source: 'PROMTOOL',
      version: `promtool, version 2.42.0 (${explicit})`,
    });
    expect(await ensurePromtool({ searchPath: path.dirname(onPath) })).toMatchObject({
      path: onPath,
      source: 'PATH',
    });
  });

  it('uses a package unpacked before, without apt-get', async () => {
    const installDir = path.join(dir, 'prometheus');
    await fakePromtool(promtoolIn(installDir));
    const tools = await fakeTools();
    const found = await ensurePromtool({ searchPath: '/nonexistent', installDir, isRoot: true, ...tools });
    expect(found).toMatchObject({ path: promtoolIn(installDir), source: 'installed' });
    expect(await toolCalls()).toEqual([]);
  });

  it('downloads and unpacks Debian’s prometheus, with apt-get update only when the list is missing', async () => {
    const installDir = path.join(dir, 'prometheus');
    const tools = await fakeTools({ needsUpdate: true });
    const lines: string[] = [];
    const found = await ensurePromtool({
      searchPath: '/nonexistent',
      installDir,
      isRoot: true,
      ...tools,
      log: (l) => lines.push(l),
    });
    expect(found).toEqual({
      path: promtoolIn(installDir),
      source: 'installed',
      version: 'promtool, version 2.42.0 (unpacked)',
    });
    expect(await toolCalls()).toEqual([
      'apt-get download prometheus',
      'apt-get update',
      'apt-get download prometheus',
      `dpkg-deb -x prometheus_2.42.0_amd64.deb ${installDir}`,
    ]);
    expect(lines).toEqual([
      `unpacking Debian's prometheus into ${installDir} for the alert rules test (${tools.aptGet} download prometheus)`,
    ]);
  });

  it('does not run apt-get when not root, and says what was tried on one line', async () => {
    const tools = await fakeTools();
    const err = await ensurePromtool({
      explicitPath: path.join(dir, 'missing'),
      searchPath: `/nonexistent${path.delimiter}/nonexistent2`,
      installDir: path.join(dir, 'prometheus'),
      isRoot: false,
      ...tools,
      log: quiet,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PromtoolNotFoundError);
    expect((err as Error).message).toBe(
      `no promtool for the alert rules test: PROMTOOL: ${path.join(dir, 'missing')} does not exist or is not executable; ` +
        "PATH: no promtool in 2 folders; not root, so Debian's prometheus was not downloaded. " +
        "Set PROMTOOL to a promtool binary, or run as root to unpack Debian's prometheus package into .tflow/.",
    );
    expect((err as Error).message).not.toContain('\n');
    expect(await toolCalls()).toEqual([]);
  });
});
