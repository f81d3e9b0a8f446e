import { describe, expect, it } from 'vitest';
import * as client from 'temporal-flow';
import * as devserver from 'temporal-flow/devserver';
import * as testing from 'temporal-flow/testing';
import * as worker from 'temporal-flow/worker';
import * as clientSource from '../../src/index';
import * as devserverSource from '../../src/devserver/index';
import * as testingSource from '../../src/testing/index';
import * as workerSource from '../../src/worker/index';

/*
 * Tests import the package by its public names (the examples do, and npm-start.test.ts imports them) with
 * no build: vitest.config.mts maps each name to its source, as tsconfig.json's `paths` do for tsc and tsx.
 * The same module object proves the name did not resolve into dist/ (absent on a fresh clone, stale after).
 */
describe("the package's own names resolve to src/ in the tests, without a build", () => {
  it.each([
    ['temporal-flow', client, clientSource],
    ['temporal-flow/worker', worker, workerSource],
    ['temporal-flow/devserver', devserver, devserverSource],
    ['temporal-flow/testing', testing, testingSource],
  ])('%s', (_name, byName, bySource) => {
    expect(byName).toBe(bySource);
  });
});
