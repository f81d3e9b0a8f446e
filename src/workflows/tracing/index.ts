export { TRACE_ATTRIBUTES } from './tracing-defs';
