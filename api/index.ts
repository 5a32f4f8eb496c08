export { createApp, type AppDependencies } from './app';
export { startApi, type RunningApi, type StartApiOptions, type InProcessJobConsumer } from './start-api';
