import { showProgress } from './current-details';
import type {
  ChildRunProgress,
  CompensationOutcome,
  PipelineProgress,
  StepRecord,
  WaitingStep,
} from '../run-types';

/**
 * Keeps the state the `progress` query returns. Durations come from workflow time (the time of the
 * history events), so they replay identically. Every change is also shown as the run's current details
 * in the Temporal UI (current-details.ts).
 */
export class ProgressTracker {
  readonly state: PipelineProgress;
  private readonly running: string[] = [];

  constructor(pipeline: string) {
    this.state = { pipeline, status: 'running', currentStep: null, running: [], completed: [] };
    this.show();
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
    this.show();
  }

  stopped(stepId: string): void {
    const i = this.running.indexOf(stepId);
    if (i >= 0) this.running.splice(i, 1);
    this.state.currentStep = this.running[this.running.length - 1] ?? null;
    this.show();
  }

  completed(record: StepRecord): void {
    this.state.completed.push(record);
    this.show();
  }

  /** A sleep or a wait for a signal began. */
  waiting(step: WaitingStep): void {
    (this.state.waiting ??= []).push(step);
    this.show();
  }

  /** A sleep or a wait ended. */
  doneWaiting(stepId: string): void {
    this.state.waiting = this.state.waiting?.filter((w) => w.step !== stepId);
    this.show();
  }

  /** A child pipeline started, or ended with `status`. */
  child(record: ChildRunProgress): void {
    const children = (this.state.children ??= []);
    const i = children.findIndex((c) => c.step === record.step);
    if (i >= 0) children[i] = record;
    else children.push(record);
    this.show();
  }

  compensated(outcome: CompensationOutcome): void {
    (this.state.compensations ??= []).push(outcome);
    this.show();
  }

  end(status: PipelineProgress['status']): void {
    this.state.status = status;
    this.state.currentStep = null;
    this.running.length = 0;
    this.show();
  }

  private show(): void {
    showProgress(this.snapshot());
  }

  get completedIds(): string[] {
    return this.state.completed.map((s) => s.id);
  }
}
