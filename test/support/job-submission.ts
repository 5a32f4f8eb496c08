import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { bodyShapeOf, IDEMPOTENCY_FIELD } from '../../shared/contract/operations/paid-body';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import type { Call, CallOptions, CallResult } from './checked-client';
import { newKey } from './harness';

/** Anything that sends checked requests to a connector: an in-process connector, a spawned API, a stand. */
export interface JobClient {
  call: Call;
}

/** What a submission may change from the defaults; everything else comes from the registry. */
export interface JobSubmission {
  /** The paid operation to submit to (default `createJob`). */
  operationId?: string;
  /** The job's input (default: the job's declared example input). */
  input?: unknown;
  /** The `Idempotency-Key` header (default: a fresh key; `null`: none sent). */
  key?: string | null;
  /** More headers (a second key, a trace context, an address); sent after the key, so they can replace it. */
  headers?: Record<string, string>;
  /**
   * More members of the body beside `input` (the `idempotency_key` field). For an operation whose body is its
   * input, an `idempotency_key` here is sent as the query parameter of that name, where such a body takes it.
   */
  body?: Record<string, unknown>;
  /** The registry to look the operation up in (default the real one). */
  operations?: readonly Operation[];
}

/**
 * The paid operation `operationId` of a registry; throws for one that is missing or not paid, so that a test
 * naming the wrong operation fails where it names it.
 */
export function paidOperationOf(operationId = 'createJob', operations: readonly Operation[] = OPERATIONS): Operation {
  const operation = operations.find((candidate) => candidate.operationId === operationId);
  if (!operation?.job || !operation.price) throw new Error(`${operationId} is not a paid operation of this registry`);
  return operation;
}

/** The request a submission sends: the operation's path, and the options the checked client takes. */
export function jobRequest(token: string | undefined, submission: JobSubmission = {}): { path: string; options: CallOptions } {
  const operation = paidOperationOf(submission.operationId, submission.operations);
  const input = 'input' in submission ? submission.input : operation.job!.example;
  const key = submission.key === undefined ? newKey() : submission.key;
  const headers = { ...(key === null ? {} : { 'idempotency-key': key }), ...submission.headers };
  if (bodyShapeOf(operation) === 'wrapped')
    return { path: operation.path, options: { token, body: { input, ...submission.body }, headers } };
  const { [IDEMPOTENCY_FIELD]: bodyKey, ...more } = submission.body ?? {};
  const query = bodyKey === undefined ? '' : `?${IDEMPOTENCY_FIELD}=${encodeURIComponent(String(bodyKey))}`;
  const body = Object.keys(more).length === 0 ? input : { ...(input as object), ...more };
  return { path: `${operation.path}${query}`, options: { token, body, headers } };
}

/** A paid operation's tool arguments for `input`: under `input`, or the input's own fields for a top-level body. */
export function paidArguments(operation: Operation, input: unknown): Record<string, unknown> {
  return bodyShapeOf(operation) === 'wrapped' ? { input } : { ...(input as Record<string, unknown>) };
}

/**
 * Submits one paid job as a client would, `POST` to the operation's path with its example input (or `input`)
 * and a fresh idempotency key (or `key`), and answers the checked response as is: the caller asserts on it.
 */
export function submitJob(client: JobClient, token: string | undefined, submission: JobSubmission = {}): Promise<CallResult> {
  const { path, options } = jobRequest(token, submission);
  return client.call('POST', path, options);
}

/** {@link submitJob} for the placeholder operation with a prompt: what most tests script their jobs by. */
export function submitPrompt(
  client: JobClient,
  token: string | undefined,
  prompt: string,
  submission: Omit<JobSubmission, 'input'> = {},
): Promise<CallResult> {
  return submitJob(client, token, { ...submission, input: { prompt } });
}

/** {@link submitJob} that must be accepted (202): answers the job as accepted, for tests about what follows. */
export async function acceptedJob(client: JobClient, token: string, submission: JobSubmission = {}): Promise<Record<string, any>> {
  const res = await submitJob(client, token, submission);
  expect(res.status, res.text).to.equal(202);
  return res.body;
}
