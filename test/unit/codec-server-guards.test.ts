import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  bearerMatches,
  checkAllowedHosts,
  checkCorsOrigins,
  hostNameOf,
  listenNames,
  originGrant,
  tokenProblem,
} from '../../src/codec/codec-server-guards';
import { CodecServerOptionsError } from '../../src/codec/errors';

describe('the codec server checks who calls it', () => {
  it.each([
    ['127.0.0.1:8888', '127.0.0.1'],
    ['LOCALHOST:8888', 'localhost'],
    ['localhost.', 'localhost'],
    ['[::1]:8888', '::1'],
    ['[::1]', '::1'],
    ['::1', '::1'],
    ['codec.example.com', 'codec.example.com'],
  ])('reads the host name of Host %s as %s', (header, name) => {
    expect(hostNameOf(header)).toBe(name);
  });

  it('answers to its address, loopback names on loopback, every address when listening on all, and the names given', () => {
    expect([...listenNames('127.0.0.1', '127.0.0.1', [])].sort()).toEqual(['127.0.0.1', '::1', 'localhost']);
    const lan = listenNames('10.0.0.5', '10.0.0.5', ['codec.example.com:443']);
    expect([...lan].sort()).toEqual(['10.0.0.5', 'codec.example.com']);
    const all = listenNames('0.0.0.0', '0.0.0.0', []);
    expect(all.has('127.0.0.1')).toBe(true);
    expect(all.has(hostname().toLowerCase())).toBe(true);
    expect(all.has('attacker.example')).toBe(false);
  });

  it('grants credentials only to an origin named exactly, never under *', () => {
    expect(originGrant('http://localhost:8233', ['http://localhost:8233'])).toBe('exact');
    expect(originGrant('http://localhost:8080', ['http://localhost:8233'])).toBe('refused');
    expect(originGrant('http://evil.example', ['*', 'http://localhost:8233'])).toBe('wildcard');
  });

  it('refuses * without authentication, and what is not an origin', () => {
    expect(checkCorsOrigins(['*'], true)).toEqual(['*']);
    expect(() => checkCorsOrigins(['*'], false)).toThrow(CodecServerOptionsError);
    for (const bad of ['http://localhost:8233/', 'localhost:8233', 'http://x/ui', 'ftp://x']) {
      expect(() => checkCorsOrigins([bad], true), bad).toThrow(`the CORS origin "${bad}" is not an origin`);
    }
    expect(() => checkAllowedHosts(['https://codec.example.com/'])).toThrow(CodecServerOptionsError);
    expect(checkAllowedHosts(['codec.example.com:8888', '[::1]'])).toHaveLength(2);
  });

  it('takes a token of 16 visible ASCII characters or more, and only as Bearer', () => {
    expect(tokenProblem('x'.repeat(15))).toContain('is 15 characters; give at least 16');
    expect(tokenProblem('with a space here!')).toContain('not visible ASCII');
    expect(tokenProblem('0123456789abcdef')).toBeUndefined();
    expect(bearerMatches('Bearer 0123456789abcdef', '0123456789abcdef')).toBe(true);
    expect(bearerMatches('bearer 0123456789abcdef', '0123456789abcdef')).toBe(true);
    expect(bearerMatches('Bearer 0123456789abcdeF', '0123456789abcdef')).toBe(false);
    expect(bearerMatches('Basic 0123456789abcdef', '0123456789abcdef')).toBe(false);
    expect(bearerMatches(undefined, '0123456789abcdef')).toBe(false);
  });
});
