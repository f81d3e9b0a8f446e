export { setupNamespace } from './setup-namespace';
export type { SetupNamespaceOptions, SetupReport } from './setup-namespace';
export { runDoctor } from './doctor';
export type { DoctorOptions } from './doctor';
export type { CheckId, CheckStatus, DoctorCheck, DoctorReport } from './doctor-types';
export type { SearchAttributeStatus } from './search-attributes';
export {
  InvalidRetentionError,
  NamespaceNotFoundError,
  SearchAttributeTypeError,
  SetupNotPermittedError,
} from './errors';
export { parseRetention, formatRetention, RECOMMENDED_RETENTION_MS } from './retention';
