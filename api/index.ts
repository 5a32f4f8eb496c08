export { createApp, type AppDependencies } from './app';
export { startApi, type RunningApi, type StartApiOptions } from './start-api';
