import { startTracing } from '../shared/platform/tracing/start-tracing';

/**
 * The worker's tracing, started when this module is first imported: worker/main.ts imports it before
 * anything else, so that the HTTP and Redis instrumentations are in place before `http` and `ioredis` are
 * loaded. Undefined when tracing is off.
 */
export const tracing = startTracing(process.env, 'connector-worker');
