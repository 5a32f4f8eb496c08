import { priceRange } from '../../domain/jobs/price';
import type { X402Settings } from '../../platform/config/x402-settings';
import type { Operation } from '../operations/operation';
import type { OpenApiDocument } from './openapi-document';

/** The operations an agent can pay with x402: the paid asynchronous ones (a job at a price). */
export function x402Payable(operations: readonly Operation[]): Operation[] {
  return operations.filter((operation) => operation.auth === 'bearer' && operation.job !== undefined && operation.price !== undefined);
}

/** What `x-x402` says of one paid operation: the scheme, where and in what it is paid, and its amounts in token units. */
function x402Terms(operation: Operation, settings: X402Settings): Record<string, unknown> {
  const { min, max } = priceRange(operation.price!);
  const unit = BigInt(settings.atomicPerCredit);
  return {
    scheme: 'exact',
    network: settings.network,
    asset: settings.asset,
    pay_to: settings.payTo,
    atomic_per_credit: settings.atomicPerCredit,
    min_amount: (unit * BigInt(min)).toString(),
    max_amount: (unit * BigInt(max)).toString(),
    headers: { required: 'PAYMENT-REQUIRED', payment: 'PAYMENT-SIGNATURE', response: 'PAYMENT-RESPONSE', payer_token: 'Payer-Token' },
  };
}

/**
 * The published document with `X402=on`: each paid operation gains `x-x402` (how an agent without a token pays
 * it, and for how much: its `x-cost` range times the token units per credit; `x-cost` stays the one price) and
 * may be called without security. With `X402` off the document is left as it is.
 */
export function withX402(document: OpenApiDocument, operations: readonly Operation[], settings: X402Settings | undefined): OpenApiDocument {
  if (!settings) return document;
  const paths = document.paths as Record<string, Record<string, Record<string, unknown>>>;
  for (const operation of x402Payable(operations)) {
    const object = paths[operation.path]?.[operation.method];
    if (!object) continue;
    object['x-x402'] = x402Terms(operation, settings);
    const security = (object.security as unknown[] | undefined) ?? [];
    object.security = [...security, {}];
  }
  return document;
}

/** The `/llms.txt` section for agents paying with x402, appended when `X402=on`; empty otherwise. */
export function x402LlmsSection(operations: readonly Operation[], settings: X402Settings | undefined): string {
  if (!settings) return '';
  const lines = [
    '',
    '## Paying with x402 (agents without a token)',
    '',
    `Paid operations can be paid per call with x402 v2 (scheme exact, network ${settings.network}, asset ${settings.asset}, to ${settings.payTo}; one credit is ${settings.atomicPerCredit} token units).`,
    'Call without a token: the 402 carries PAYMENT-REQUIRED with the amount of this very input; retry with PAYMENT-SIGNATURE and the same idempotency key.',
    'The 202 carries PAYMENT-RESPONSE and a Payer-Token header: use it as the bearer token to poll, cancel or retry that job. What a failed or canceled job gives back stays on your account and pays your next call first.',
    '',
  ];
  for (const operation of x402Payable(operations)) {
    const terms = x402Terms(operation, settings);
    lines.push(
      `- ${operation.operationId} (${operation.method.toUpperCase()} ${operation.path}): ${terms.min_amount} to ${terms.max_amount} token units`,
    );
  }
  return `${lines.join('\n')}\n`;
}
