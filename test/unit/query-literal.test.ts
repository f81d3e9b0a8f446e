import { describe, expect, it } from 'vitest';
import { queuedDeadLettersQuery } from '../../src/client/dead-letters/dead-letters';
import { queryLiteral } from '../../src/client/query-literal';
import { runQuery } from '../../src/client/runs/run-list';

describe('queryLiteral: a string literal of Temporal list filters', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", "'it\\'s'"],
    ['C:\\temp\\', "'C:\\\\temp\\\\'"],
    ["x\\' OR ExecutionStatus = 1 #", "'x\\\\\\' OR ExecutionStatus = 1 #'"],
  ])('%s -> %s', (value, literal) => {
    expect(queryLiteral(value)).toBe(literal);
  });
});

describe('queuedDeadLettersQuery', () => {
  const base = "WorkflowType = 'deadLetterWorkflow' AND ExecutionStatus = 'Running'";
  it('filters by pipeline with one escaped literal', () => {
    expect(queuedDeadLettersQuery("bob's")).toBe(`${base} AND TflowPipeline = 'bob\\'s'`);
  });
  it('asks for a name with a backslash by the part before it (SQL visibility would double the backslash), the exact name left to the client-side filter', () => {
    expect(queuedDeadLettersQuery('C:\\etl')).toBe(`${base} AND TflowPipeline STARTS_WITH 'C:'`);
    expect(queuedDeadLettersQuery("it's\\odd")).toBe(`${base} AND TflowPipeline STARTS_WITH 'it\\'s'`);
    expect(queuedDeadLettersQuery('\\etl')).toBe(base);
    expect(queuedDeadLettersQuery()).toBe(base);
  });
});

describe('runQuery', () => {
  const base = "WorkflowType = 'pipelineWorkflow'";
  it('narrows a job id or pipeline with a backslash to the part before it, the exact value left to listRuns', () => {
    expect(runQuery({ pipeline: 'etl' })).toBe(`${base} AND TflowPipeline = 'etl'`);
    expect(runQuery({ pipeline: 'C:\\etl', jobId: 'nightly' })).toBe(
      `${base} AND TemporalScheduledById = 'nightly' AND TflowPipeline STARTS_WITH 'C:'`,
    );
    expect(runQuery({ jobId: '\\odd' })).toBe(base);
  });
});
