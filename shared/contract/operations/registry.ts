import { answerAuthorization } from './answer-authorization';
import { cancelJob } from './cancel-job';
import { createJob } from './create-job';
import { createThing } from './create-thing';
import { exportCredits } from './export-credits';
import { getAuthorization } from './get-authorization';
import { getCreditSummary } from './get-credit-summary';
import { getCredits } from './get-credits';
import { getJob } from './get-job';
import { getMe } from './get-me';
import { getUsage } from './get-usage';
import { grantCredits } from './grant-credits';
import { link } from './link';
import { listConnections } from './list-connections';
import { listEventTypes } from './list-event-types';
import { listJobs } from './list-jobs';
import { listThings } from './list-things';
import type { Operation } from './operation';
import { revoke } from './revoke';
import { voidCredits } from './void-credits';

/**
 * Every operation of the service, in the order the documents list them. Routes, request validation,
 * `/openapi.json`, `/llms.txt` and the MCP tools are all generated from this one list: add an operation here.
 */
export const OPERATIONS: readonly Operation[] = [
  getMe,
  listThings,
  createThing,
  createJob,
  listJobs,
  getJob,
  cancelJob,
  link,
  revoke,
  listConnections,
  getUsage,
  getCredits,
  getCreditSummary,
  exportCredits,
  grantCredits,
  voidCredits,
  listEventTypes,
  getAuthorization,
  answerAuthorization,
];

/** The operations shown to the platform's model. */
export function publishedOperations(operations: readonly Operation[] = OPERATIONS): Operation[] {
  return operations.filter((operation) => operation.published);
}
