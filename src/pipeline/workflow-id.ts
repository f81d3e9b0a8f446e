/*
 * Workflow id templates: `etl-{date}`, `{pipeline}-{time}`, `report-{uuid}`. One model for the three
 * places a run gets an id from a template: `PipelineClient.start()` (rendered on the client), a chain
 * (`.then(p, { jobId })`, rendered in the workflow that starts the next run) and a scheduled job
 * (`workflowId` of the job, rendered when the job is written). Workflow-safe: no Node built-ins; the
 * caller passes the clock and the uuid source (the workflow's own are deterministic).
 */
import { describeValue, type InvalidArgumentErrorClass } from '../errors';

/**
 * What a placeholder stands for:
 * - `{pipeline}`: the pipeline's name;
 * - `{date}`: the date now, `YYYY-MM-DD` (UTC);
 * - `{time}`: the instant now, `YYYYMMDDTHHmmssZ` (UTC, to the second);
 * - `{uuid}`: a random UUID (unique on every render);
 * - `{run}`: the workflow id of the run that starts this one (chains only);
 * - `{job}`: the job id (scheduled jobs only).
 */
export const WORKFLOW_ID_PLACEHOLDERS = ['pipeline', 'date', 'time', 'uuid', 'run', 'job'] as const;
export type WorkflowIdPlaceholder = (typeof WORKFLOW_ID_PLACEHOLDERS)[number];

/** What a template is rendered with; `run` and `job` only where they exist. */
export interface WorkflowIdValues {
  pipeline: string;
  now: Date;
  uuid: () => string;
  run?: string;
  job?: string;
}

/** Longest rendered id we accept: Temporal's limit is 1,000 bytes, and a scheduled run's id gets a time appended. */
export const MAX_WORKFLOW_ID_LENGTH = 400;

const PLACEHOLDER = /\{([^{}]*)\}/g;

/**
 * Checks a template: a non-blank string whose placeholders are among `allowed`. Returns the placeholders
 * it uses.
 *
 * @throws the caller's `error` class naming `field`.
 */
export function checkWorkflowIdTemplate(
  template: unknown,
  allowed: readonly WorkflowIdPlaceholder[],
  field: string,
  error: InvalidArgumentErrorClass,
): WorkflowIdPlaceholder[] {
  if (typeof template !== 'string' || template.trim() === '' || template.length > MAX_WORKFLOW_ID_LENGTH) {
    throw new error(
      field,
      `${field} must be a non-blank workflow id (template) of at most ${MAX_WORKFLOW_ID_LENGTH} characters, got ${describeValue(template)}`,
    );
  }
  const used: WorkflowIdPlaceholder[] = [];
  for (const [, name] of template.matchAll(PLACEHOLDER)) {
    const known = allowed.find((p) => p === name);
    if (!known) {
      throw new error(
        field,
        `${field}: unknown placeholder "{${name}}" in ${describeValue(template)}; allowed here: ${allowed.map((p) => `{${p}}`).join(', ')}`,
      );
    }
    used.push(known);
  }
  const rest = template.replace(PLACEHOLDER, '');
  if (rest.includes('{') || rest.includes('}')) {
    throw new error(
      field,
      `${field}: unbalanced brace in ${describeValue(template)}; placeholders are written {date}, {uuid}, ...`,
    );
  }
  return used;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Renders a checked template. Placeholders without a value (`{run}` outside a chain) render empty. */
export function renderWorkflowId(template: string, values: WorkflowIdValues): string {
  const d = values.now;
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  return template.replace(PLACEHOLDER, (_, name: string) => {
    switch (name as WorkflowIdPlaceholder) {
      case 'pipeline':
        return values.pipeline;
      case 'date':
        return date;
      case 'time':
        return `${date.replaceAll('-', '')}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
      case 'uuid':
        return values.uuid();
      case 'run':
        return values.run ?? '';
      case 'job':
        return values.job ?? '';
    }
  });
}
