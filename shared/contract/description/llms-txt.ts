import { limitsText } from '../../domain/admission/operation-limits';
import { priceStatement } from '../../domain/jobs/price';
import { toolName } from '../mcp/tool-definitions';
import { modelDescription } from '../operations/model-description';
import type { Operation } from '../operations/operation';
import { bodyShapeOf } from '../operations/paid-body';
import { SERVICE_INFO } from './service-info';

/** Where llms.txt sends the person and the model. */
export interface LlmsTxtLinks {
  publicUrl: string;
  dashboardUrl: string;
}

/**
 * Builds `/llms.txt` (llmstxt.org layout) from the published operations: each description verbatim, with
 * its cost and polling notes, then the rules an assistant must follow. Nothing here depends on a request.
 */
export function buildLlmsTxt(operations: readonly Operation[], { publicUrl, dashboardUrl }: LlmsTxtLinks): string {
  const byId = new Map(operations.map((operation) => [operation.operationId, operation]));
  const lines: string[] = [
    `# ${SERVICE_INFO.name}`,
    '',
    `> ${SERVICE_INFO.summary}`,
    '',
    '## Setup',
    '',
    `- Access: the person connects at ${dashboardUrl} and gets a token there; send it on every call as \`Authorization: Bearer <token>\`. The person can revoke it at the same address.`,
    `- Base URL: ${publicUrl} (every path below is relative to it).`,
    '',
    '## Operations',
    '',
  ];
  for (const operation of operations) {
    lines.push(`### ${operation.operationId}: ${operation.method.toUpperCase()} ${operation.path}`, '', modelDescription(operation), '');
    lines.push(
      operation.price
        ? `- Cost: ${priceStatement(operation.price)}, charged once when the job is accepted. Needs the person's explicit yes before each call. ${keyLine(operation)}`
        : '- Cost: free.',
    );
    if (operation.limits)
      lines.push(
        `- Limits per person: ${limitsText(operation.limits)} A 429 or 402 naming this operation means its own limit, not the connector's.`,
      );
    if (operation.async) {
      const poll = byId.get(operation.async.pollOperationId);
      const target = poll ? `${poll.operationId} (${poll.method.toUpperCase()} ${poll.path})` : operation.async.pollOperationId;
      lines.push(
        `- Asynchronous: answers 202 with a job at once. Poll ${target} every Retry-After seconds (${operation.async.retryAfterSeconds} s) until status is succeeded, failed or canceled.`,
      );
    }
    lines.push('');
  }
  lines.push(
    '## Rules for the assistant',
    '',
    '- Before each paid call, tell the person what it does and what it costs, and get a fresh, specific yes for that call. An earlier yes does not cover a new job.',
    '- To follow a job, poll it. Never call the paid operation again to check progress: that asks for a new job.',
    '- When a paid call fails with a network error, a timeout, a 429 or a 5xx, retry it with the same idempotency key and the same input; you get the same job and no second charge. Use a new key only for a new job the person asked for.',
    '- A 422 means the idempotency key was already used for a different request: use a new key for the new request.',
    `- A 401 means the connection is missing, expired or revoked: ask the person to reconnect at ${dashboardUrl}.`,
    "- A 402 means the person's daily credit budget is used up: tell them when it resets (the detail says), and do not retry the job before then. A retry of a job that was already accepted still returns that job.",
    '- A 402 whose type ends in price-exceeds-daily-limit means this job costs more than the whole daily budget: it will never be accepted as asked, so do not retry it; offer a smaller job.',
    ...operationLimitRules(operations),
    '- A 429 or a 503 means wait the number of seconds in Retry-After, then try again.',
    '- Show results as the API returns them; do not invent fields or results.',
    '',
    ...mcpSection(operations, publicUrl),
    '## OpenAPI',
    '',
    `- [OpenAPI description](${publicUrl}/openapi.json): every operation with its full request and response schemas.`,
    '',
  );
  return lines.join('\n');
}

/** Where a paid operation takes its idempotency key, and its input: under `input`, or as the whole body. */
function keyLine(operation: Operation): string {
  return bodyShapeOf(operation) === 'top-level'
    ? 'Needs an idempotency key (Idempotency-Key header or idempotency_key query parameter). The body is the input itself, its fields at the top level.'
    : 'Needs an idempotency key (Idempotency-Key header or idempotency_key field).';
}

/** The rules about an operation's own limits, only when one declares them (the shipped registry's text is unchanged). */
function operationLimitRules(operations: readonly Operation[]): string[] {
  if (!operations.some((operation) => operation.limits?.dailyCredits !== undefined)) return [];
  return [
    "- A 402 whose type ends in operation-budget-exhausted means the person's daily credits for that one operation are used up: tell them when it resets (the detail says) and do not retry it before then; the other operations still work.",
  ];
}

/** How an assistant app connects over MCP: the same operations as tools, the same token. */
function mcpSection(operations: readonly Operation[], publicUrl: string): string[] {
  const tools = operations.map((operation) => `${toolName(operation.operationId)} (${operation.operationId})`).join(', ');
  const paid = operations.filter((operation) => operation.price !== undefined);
  const lines = [
    '## MCP',
    '',
    `- Endpoint: ${publicUrl}/mcp (Model Context Protocol, Streamable HTTP: POST only, JSON answers, no session; protocol revisions 2025-11-25 and 2026-07-28).`,
    '- Auth: the same token as above, as `Authorization: Bearer <token>`. Without a valid one the endpoint answers 401 with a `WWW-Authenticate` header naming its OAuth protected-resource metadata, which OAuth-capable apps follow to connect the person.',
    `- Tools: one per operation above, same description and schemas: ${tools}.`,
  ];
  for (const operation of paid) {
    const poll = operation.async
      ? ` Apps that support the MCP tasks extension get a task whose id is the job id; otherwise poll ${toolName(operation.async.pollOperationId)} with that id.`
      : '';
    lines.push(
      `- ${toolName(operation.operationId)} is paid: it requires an idempotency_key argument, and the rules above apply unchanged.${poll}`,
    );
  }
  lines.push('');
  return lines;
}
