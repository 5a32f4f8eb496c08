export { createApp, type AppDependencies } from './app';
export { startApi, type RunningApi } from './start-api';
