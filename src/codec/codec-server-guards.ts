import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { CodecServerOptionsError } from './errors';

/*
 * Who may call the codec server, checked before a payload is read: the names it answers to (the `Host`
 * header, against DNS rebinding), the browser origins it was given (CORS, with credentials only for an
 * origin named exactly), and the bearer token. Pure but for the machine's own names; codec-server.ts applies them.
 */

/** Shortest token accepted: a bearer token is a password that never needs typing. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * Checks a bearer token: at least {@link MIN_TOKEN_LENGTH} characters, visible ASCII only (it travels in
 * an HTTP header as it is).
 *
 * @returns undefined when the token is fine, else what is wrong (for the caller's error).
 */
export function tokenProblem(token: string): string | undefined {
  if (token.length < MIN_TOKEN_LENGTH) {
    return `is ${token.length} characters; give at least ${MIN_TOKEN_LENGTH}, e.g. $(openssl rand -hex 32)`;
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    return 'holds a space or a character that is not visible ASCII; it travels in an HTTP header as it is';
  }
  return undefined;
}

/**
 * The browser origins a server accepts, checked: each an exact origin (`scheme://host[:port]`, no path,
 * no trailing slash) or `*`. `*` is refused without authentication: it lets every page the browser opens
 * call the server, which would then decrypt for any of them.
 *
 * @throws CodecServerOptionsError naming `corsOrigins` (`--cors-origin` in the CLI).
 */
export function checkCorsOrigins(origins: readonly string[], authenticated: boolean): readonly string[] {
  for (const origin of origins) {
    if (origin === '*') {
      if (!authenticated) {
        throw new CodecServerOptionsError(
          'corsOrigins',
          "the CORS origin '*' lets every web page the browser opens call the codec server, which needs no token: name the UI's origin (--cors-origin http://localhost:8233), or require a token (TFLOW_CODEC_TOKEN)",
        );
      }
      continue;
    }
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (
      !parsed ||
      (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
      parsed.origin !== origin
    ) {
      throw new CodecServerOptionsError(
        'corsOrigins',
        `the CORS origin "${origin}" is not an origin: write scheme://host[:port] with no path or trailing slash, as the browser sends it (e.g. http://localhost:8233)`,
      );
    }
  }
  return origins;
}

/** What a request's origin is allowed: nothing, the origin itself (credentials too), or `*` (no credentials). */
export type OriginGrant = 'refused' | 'exact' | 'wildcard';

/** Whether a browser origin may call: named exactly, or under `*`. */
export function originGrant(origin: string, allowed: readonly string[]): OriginGrant {
  if (allowed.includes(origin)) return 'exact';
  return allowed.includes('*') ? 'wildcard' : 'refused';
}

/** The host name of a `Host` header, lower-case, without its port or the brackets of an IPv6 address. */
export function hostNameOf(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(1, value.indexOf(']') > 0 ? value.indexOf(']') : undefined);
  const colon = value.lastIndexOf(':');
  // One colon: name:port. More: a bare IPv6 address (no brackets, no port).
  const name = colon >= 0 && value.indexOf(':') === colon ? value.slice(0, colon) : value;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

function isLoopback(address: string): boolean {
  return address === '::1' || address === 'localhost' || address.startsWith('127.');
}

/**
 * The names a server listening on `bound` (the address it got: `127.0.0.1`, `::`, `10.0.0.5`) answers
 * to: that address and the name it was asked to listen on; `localhost` and the loopback addresses when it
 * listens on loopback; every address of the machine and its host name when it listens on all of them; and
 * the names given (`allowedHosts`: a reverse proxy's, a DNS name).
 */
export function listenNames(bound: string, requested: string, allowedHosts: readonly string[]): Set<string> {
  const names = new Set<string>([bound, requested].map(hostNameOf));
  const all = bound === '0.0.0.0' || bound === '::';
  if (all || isLoopback(bound) || isLoopback(requested)) for (const n of LOOPBACK_NAMES) names.add(n);
  if (all) {
    names.add(hostname().toLowerCase());
    for (const list of Object.values(networkInterfaces())) {
      for (const i of list ?? []) names.add(hostNameOf(i.address));
    }
  }
  for (const name of allowedHosts) names.add(hostNameOf(name));
  return names;
}

/**
 * Checks the names given to answer to: host names or IP addresses, without scheme or path.
 *
 * @throws CodecServerOptionsError naming `allowedHosts` (`--allowed-host` in the CLI).
 */
export function checkAllowedHosts(hosts: readonly string[]): readonly string[] {
  for (const host of hosts) {
    const name = hostNameOf(host);
    const ok =
      !/[/@\s]/.test(host) &&
      (isIP(name) !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name));
    if (!ok) {
      throw new CodecServerOptionsError(
        'allowedHosts',
        `the allowed host "${host}" is not a host name or address: write it as in the Host header, e.g. codec.example.com or codec.example.com:8888`,
      );
    }
  }
  return hosts;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Whether an `Authorization` header carries `Bearer <token>`; compared in constant time. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}
