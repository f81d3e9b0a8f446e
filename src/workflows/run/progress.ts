import { progressDetails, showWhenRead } from './current-details';
import type {
  ChildRunProgress,
  CompensationOutcome,
  PipelineProgress,
  StepRecord,
  WaitingStep,
} from '../run-types';

/**
 * Keeps the state the `progress` query returns. Durations come from workflow time (the time of the
 * history events), so they replay identically. The state is also the run's current details in the
 * Temporal UI (current-details.ts), rendered when the UI reads them.
 */
export class ProgressTracker {
  readonly state: PipelineProgress;
  private readonly running: string[] = [];

  constructor(pipeline: string) {
    this.state = { pipeline, status: 'running', currentStep: null, running: [], completed: [] };
    showWhenRead(() => progressDetails(this.snapshot()));
  }

  /** What the query returns: a copy, so that callers never see a half-updated state. */
  snapshot(): PipelineProgress {
    const { compensations, waiting, children, ...rest } = this.state;
    return {
      ...rest,
      running: [...this.running],
      completed: [...this.state.completed],
      ...(compensations ? { compensations: [...compensations] } : {}),
      ...(waiting?.length ? { waiting: waiting.map((w) => ({ ...w })) } : {}),
      ...(children ? { children: children.map((c) => ({ ...c })) } : {}),
    };
  }

  started(stepId: string): void {
    this.running.push(stepId);
    this.state.currentStep = stepId;
  }

  stopped(stepId: string): void {
    const i = this.running.indexOf(stepId);
    if (i >= 0) this.running.splice(i, 1);
    this.state.currentStep = this.running[this.running.length - 1] ?? null;
  }

  completed(record: StepRecord): void {
    this.state.completed.push(record);
  }

  /** A sleep or a wait for a signal began. */
  waiting(step: WaitingStep): void {
    (this.state.waiting ??= []).push(step);
  }

  /** A sleep or a wait ended. */
  doneWaiting(stepId: string): void {
    this.state.waiting = this.state.waiting?.filter((w) => w.step !== stepId);
  }

  /** A child pipeline started, or ended with `status`. */
  child(record: ChildRunProgress): void {
    const children = (this.state.children ??= []);
    const i = children.findIndex((c) => c.step === record.step);
    if (i >= 0) children[i] = record;
    else children.push(record);
  }

  compensated(outcome: CompensationOutcome): void {
    (this.state.compensations ??= []).push(outcome);
  }

  end(status: PipelineProgress['status']): void {
    this.state.status = status;
    this.state.currentStep = null;
    this.running.length = 0;
  }

  get completedIds(): string[] {
    return this.state.completed.map((s) => s.id);
  }
}
