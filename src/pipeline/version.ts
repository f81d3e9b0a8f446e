/**
 * Version of the {@link PipelineSpec} shape. It lives apart from the zod schema so that workflow code can
 * read it without bundling zod into every workflow (see workflows/run/interpreter.ts).
 */
export const PIPELINE_SPEC_VERSION = 1;
