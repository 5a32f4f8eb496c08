// The worker's public surface: the process wiring and the reusable BullMQ consumer (`npm run dev` uses it).
export { createJobWorker, type JobWorker, type JobWorkerConfig } from './job-worker';
export { startWorker, type RunningWorker } from './start-worker';
