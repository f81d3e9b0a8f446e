import { describe, expect, it } from 'vitest';
import { readEnv } from '../../src/config';
import { InvalidRetentionError } from '../../src/setup/errors';
import { formatRetention, parseRetention } from '../../src/setup/retention';

const DAY = 24 * 3600_000;

describe('parseRetention', () => {
  it.each([
    ['30d', 30 * DAY],
    ['1d', DAY],
    ['720h', 30 * DAY],
    [DAY * 2, 2 * DAY],
  ] as const)('%j is %d ms', (input, ms) => {
    expect(parseRetention(input)).toBe(ms);
  });

  it.each([
    [
      '12h',
      `retention "12h" is under one day, Temporal's minimum: write '1d' or more (30d is a good default)`,
    ],
    [
      'a month',
      `retention "a month" is not a duration: write milliseconds as a number or a string such as '30s', '5m', '2h', '1d'`,
    ],
  ])('refuses %j', (input, message) => {
    expect(() => parseRetention(input)).toThrow(InvalidRetentionError);
    expect(() => parseRetention(input)).toThrow(message);
  });
});

describe('formatRetention', () => {
  it.each([
    [30 * DAY, '30 days'],
    [DAY, '1 day'],
    [1.5 * DAY, '1.5 days'],
    [12 * 3600_000, '12 hours'],
  ])('%d ms is %s', (ms, text) => {
    expect(formatRetention(ms)).toBe(text);
  });
});

describe('TFLOW_RETENTION', () => {
  it('defaults to 30d and is read as given', () => {
    expect(readEnv({}).retention).toBe('30d');
    expect(readEnv({ TFLOW_RETENTION: '90d' }).retention).toBe('90d');
  });
});
