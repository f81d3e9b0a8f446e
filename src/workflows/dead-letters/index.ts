/*
 * The dead-letter queue: what a failed run files, and the keeper workflow. Uses run/ and the role root.
 */
export {
  DEAD_LETTER_MEMO,
  DEAD_LETTER_PATCH,
  DEAD_LETTER_WORKFLOW_TYPE,
  type DeadLetterActivities,
  type DeadLetterEntry,
  deadLetterQuery,
  deadLetterRedrivenSignal,
  type DeadLetterResolution,
  type DeadLetterSummary,
  deadLetterWorkflowId,
  discardDeadLetterUpdate,
  recordDeadLetterSignal,
  summarize,
} from './dead-letter-defs';
export { letterIdOf, withDeadLetter } from './dead-letter-record';
export { deadLetterWorkflow } from './dead-letter-workflow';
