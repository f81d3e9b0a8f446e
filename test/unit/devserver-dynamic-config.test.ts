import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULE_START_RPS, readEnv } from '../../src/config';
import { devServerDynamicConfig, dynamicConfigArgs } from '../../src/devserver/dynamic-config';
import { TemporalFlowError } from '../../src/errors';

describe('the embedded server dynamic config', () => {
  it('raises the schedule start rate to the default, or to the setting', () => {
    expect(devServerDynamicConfig()).toMatchObject({
      'worker.schedulerNamespaceStartWorkflowRPS': DEFAULT_SCHEDULE_START_RPS,
    });
    expect(devServerDynamicConfig({ scheduleStartRps: 50 })).toMatchObject({
      'worker.schedulerNamespaceStartWorkflowRPS': 50,
    });
  });

  it('turns fairness on only when asked (Temporal keeps it off by default)', () => {
    expect(devServerDynamicConfig()).not.toHaveProperty(['matching.enableFairness']);
    expect(devServerDynamicConfig({ fairness: true })).toMatchObject({
      'matching.useNewMatcher': true,
      'matching.enableFairness': true,
      'matching.numTaskqueueReadPartitions': 1,
      'matching.numTaskqueueWritePartitions': 1,
    });
  });

  it('passes each value as JSON to start-dev', () => {
    expect(dynamicConfigArgs({ 'a.rps': 5, 'b.opts': { X: 2 } })).toEqual([
      '--dynamic-config-value',
      'a.rps=5',
      '--dynamic-config-value',
      'b.opts={"X":2}',
    ]);
  });

  it('reads TFLOW_SCHEDULE_START_RPS, refusing what is not a number above 0', () => {
    expect(readEnv({}).scheduleStartRps).toBe(DEFAULT_SCHEDULE_START_RPS);
    expect(readEnv({ TFLOW_SCHEDULE_START_RPS: '250' }).scheduleStartRps).toBe(250);
    for (const bad of ['0', '-3', 'fast']) {
      expect(() => readEnv({ TFLOW_SCHEDULE_START_RPS: bad })).toThrow(TemporalFlowError);
    }
    expect(() => readEnv({ TFLOW_SCHEDULE_START_RPS: 'fast' })).toThrow(
      'TFLOW_SCHEDULE_START_RPS must be a number above 0, got "fast"',
    );
  });
});
