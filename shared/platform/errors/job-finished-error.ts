import { AppError } from './app-error';

/** 409: a cancel asked for a job that already succeeded or failed. */
export class JobFinishedError extends AppError {
  constructor() {
    super(409, 'job-finished', 'Job already finished', 'This job has already succeeded or failed, so it can no longer be canceled.');
  }
}
