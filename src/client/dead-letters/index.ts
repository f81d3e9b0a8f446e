/*
 * Dead letters (client side): listing, resolving and redriving the letters of failed runs. Uses the role
 * root only.
 */
export {
  type DeadLetter,
  DeadLetterNotFoundError,
  discardDeadLetter,
  type FailedRun,
  listDeadLetters,
  type ListDeadLettersOptions,
  queuedDeadLettersQuery,
  readDeadLetter,
  readFailedRun,
  RedriveError,
} from './dead-letters';
