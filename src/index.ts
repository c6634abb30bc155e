// The package entry: what an embedder needs, and nothing else.
export { createApp, type App, type AppOptions, type KeyOwner, type NewKey } from './app.js';
export type { Role } from './auth/principal.js';
export { startServer, type RunningServer, type StartOptions } from './start-server.js';
export { createLogger, type Logger, type LoggerOptions, type LogLevel } from './log/logger.js';
export type { PlainRequest, PlainResponse } from './http/types.js';
