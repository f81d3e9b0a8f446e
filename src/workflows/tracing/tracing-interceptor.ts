/*
 * Workflow interceptor module of a traced worker's bundle (TRACING_WORKFLOW_INTERCEPTOR_MODULES), after
 * Temporal's OpenTelemetry one: it names the run on the run's span (`RunWorkflow:pipelineWorkflow`, a root
 * for a scheduled run) with its pipeline, job, nominal time and occurrence, and each step on the span that
 * schedules it (`StartActivity:<activity>`).
 *
 * Replay: it sets attributes on spans only (no command, no yield, no header), so it changes nothing that a
 * history records; spans made while replaying are not exported.
 */
import { trace } from '@opentelemetry/api';
import { workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { runOccurrence } from '../idempotency/occurrence';
import { PIPELINE_WORKFLOW_TYPE, type PipelineRunInput } from '../run-types';
import { SCHEDULED_START_TIME_ATTRIBUTE } from '../search-attributes';
import { TRACE_ATTRIBUTES } from './tracing-defs';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute(input, next) {
        const info = workflowInfo();
        const span = trace.getActiveSpan();
        if (span && info.workflowType === PIPELINE_WORKFLOW_TYPE) {
          const runInput: Partial<PipelineRunInput> = (input.args[0] as PipelineRunInput | undefined) ?? {};
          const nominal = info.typedSearchAttributes.get(SCHEDULED_START_TIME_ATTRIBUTE);
          span.setAttribute(TRACE_ATTRIBUTES.occurrence, runOccurrence(runInput, info.workflowId, nominal));
          if (runInput.spec) span.setAttribute(TRACE_ATTRIBUTES.pipeline, runInput.spec.name);
          if (runInput.job) span.setAttribute(TRACE_ATTRIBUTES.jobId, runInput.job.jobId);
          if (nominal) span.setAttribute(TRACE_ATTRIBUTES.nominalTime, nominal.toISOString());
        }
        return next(input);
      },
    },
  ],
  outbound: [
    {
      scheduleActivity(input, next) {
        const id = input.options.activityId;
        if (id !== undefined) trace.getActiveSpan()?.setAttribute(TRACE_ATTRIBUTES.step, id);
        return next(input);
      },
    },
  ],
});
