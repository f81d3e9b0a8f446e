import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { logLines, writeScript } from '../helpers/fake-commands';
import { ChromiumNotFoundError, ensureChromium, findChromium } from '../helpers/chromium';

let dir: string;

/** A stand-in browser that answers `--version` like Chromium does, saying where it lives. */
const fakeBrowser = (file: string) => writeScript(file, `echo "Chromium 136.0 (${file})"`);

/**
 * A stand-in apt-get that logs its arguments (without the lock option) to `apt.log`. `install` writes the
 * browser at `installed` unless `needsUpdate` and no `update` ran yet, when it fails as Debian's does
 * without a package list; `fail` makes every install fail with that text instead.
 */
async function fakeAptGet(opts: {
  installed: string;
  needsUpdate?: boolean;
  fail?: string;
}): Promise<string> {
  const log = path.join(dir, 'apt.log');
  const updated = path.join(dir, 'apt.updated');
  return writeScript(
    path.join(dir, 'apt', 'apt-get'),
    [
      'shift 2', // -o DPkg::Lock::Timeout=300
      `echo "$*" >> ${log}`,
      `if [ "$1" = update ]; then touch ${updated}; exit 0; fi`,
      opts.fail ? `echo "${opts.fail}" >&2; exit 100` : '',
      opts.needsUpdate
        ? `if [ ! -e ${updated} ]; then echo "E: Unable to locate package chromium" >&2; exit 100; fi`
        : '',
      `mkdir -p ${path.dirname(opts.installed)}`,
      `printf '#!/bin/sh\\necho "Chromium 136.0 (installed)"\\n' > ${opts.installed}`,
      `chmod 755 ${opts.installed}`,
    ].join('\n'),
  );
}

const aptCalls = async () => logLines(path.join(dir, 'apt.log'));
const quiet = () => undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tflow-chromium-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('findChromium: CHROMIUM, then chromium, chromium-browser, google-chrome on PATH', () => {
  it('prefers CHROMIUM over PATH', async () => {
    const explicit = await fakeBrowser(path.join(dir, 'explicit', 'chrome'));
    const onPath = await fakeBrowser(path.join(dir, 'bin', 'chromium'));
    const { chromium } = await findChromium({ explicitPath: explicit, searchPath: path.dirname(onPath) });
    expect(chromium).toEqual({
      path: explicit,
      source: 'CHROMIUM',
      version: `Chromium 136.0 (${explicit})`,
    });
  });

  it('looks for each name in every PATH folder before the next name', async () => {
    const chrome = await fakeBrowser(path.join(dir, 'a', 'google-chrome'));
    const ubuntu = await fakeBrowser(path.join(dir, 'b', 'chromium-browser'));
    const debian = await fakeBrowser(path.join(dir, 'c', 'chromium'));
    const search = (...files: string[]) => ({
      searchPath: files.map((f) => path.dirname(f)).join(path.delimiter),
    });
    expect((await findChromium(search(chrome, ubuntu, debian))).chromium?.path).toBe(debian);
    expect((await findChromium(search(chrome, ubuntu))).chromium?.path).toBe(ubuntu);
    const { chromium, tried } = await findChromium(search(chrome));
    expect(chromium).toMatchObject({ path: chrome, source: 'PATH' });
    expect(tried).toEqual(['CHROMIUM: not set']);
  });

  it('falls through a CHROMIUM that is missing and a browser that does not run, saying so', async () => {
    const broken = await writeScript(path.join(dir, 'a', 'chromium'), 'exit 3');
    const good = await fakeBrowser(path.join(dir, 'b', 'chromium'));
    const { chromium, tried } = await findChromium({
      explicitPath: path.join(dir, 'missing'),
      searchPath: [path.dirname(broken), path.dirname(good)].join(path.delimiter),
    });
    expect(chromium).toMatchObject({ path: good, source: 'PATH' });
    expect(tried).toEqual([
      `CHROMIUM: ${path.join(dir, 'missing')} does not exist or is not executable`,
      `PATH: ${broken} --version failed: Command failed: ${broken} --version`,
    ]);
  });
});

describe("ensureChromium: installs Debian's chromium when root, or fails with a one-line reason", () => {
  it("installs with apt-get install -y chromium and uses Debian's path, without apt-get update", async () => {
    const installed = path.join(dir, 'usr', 'bin', 'chromium');
    const aptGet = await fakeAptGet({ installed });
    const lines: string[] = [];
    const found = await ensureChromium({
      searchPath: '/nonexistent',
      isRoot: true,
      aptGet,
      installedPath: installed,
      log: (l) => lines.push(l),
    });
    expect(found).toEqual({ path: installed, source: 'installed', version: 'Chromium 136.0 (installed)' });
    expect(await aptCalls()).toEqual(['install -y chromium']);
    expect(lines).toEqual([
      `installing Debian's chromium for the browser test (${aptGet} install -y chromium)`,
    ]);
  });

  it('runs apt-get update and installs again when the package list is missing', async () => {
    const installed = path.join(dir, 'usr', 'bin', 'chromium');
    const aptGet = await fakeAptGet({ installed, needsUpdate: true });
    const found = await ensureChromium({
      searchPath: '/nonexistent',
      isRoot: true,
      aptGet,
      installedPath: installed,
      log: quiet,
    });
    expect(found.source).toBe('installed');
    expect(await aptCalls()).toEqual(['install -y chromium', 'update', 'install -y chromium']);
  });

  it('fails with what apt-get said when the install fails for another reason, with no update', async () => {
    const installed = path.join(dir, 'usr', 'bin', 'chromium');
    const aptGet = await fakeAptGet({
      installed,
      fail: 'E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 42',
    });
    const err = await ensureChromium({
      searchPath: '/nonexistent',
      isRoot: true,
      aptGet,
      installedPath: installed,
      log: quiet,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChromiumNotFoundError);
    expect((err as Error).message).toBe(
      'no Chromium for the browser test: CHROMIUM: not set; PATH: no chromium, chromium-browser, google-chrome in 1 folders; ' +
        `${aptGet} install -y chromium: E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 42. ` +
        "Set CHROMIUM to a Chromium or Chrome binary, or install Debian's chromium (apt-get install chromium) as root.",
    );
    expect(await aptCalls()).toEqual(['install -y chromium']);
  });

  it('does not run apt-get when not root, and says so on one line', async () => {
    const installed = path.join(dir, 'usr', 'bin', 'chromium');
    const aptGet = await fakeAptGet({ installed });
    const err = await ensureChromium({
      explicitPath: path.join(dir, 'missing'),
      searchPath: `/nonexistent${path.delimiter}/nonexistent2`,
      isRoot: false,
      aptGet,
      installedPath: installed,
      log: quiet,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChromiumNotFoundError);
    expect((err as ChromiumNotFoundError).message).toBe(
      `no Chromium for the browser test: CHROMIUM: ${path.join(dir, 'missing')} does not exist or is not executable; ` +
        "PATH: no chromium, chromium-browser, google-chrome in 2 folders; not root, so Debian's chromium was not installed. " +
        "Set CHROMIUM to a Chromium or Chrome binary, or install Debian's chromium (apt-get install chromium) as root.",
    );
    expect((err as Error).message).not.toContain('\n');
    expect(await aptCalls()).toEqual([]);
  });
});
