/** Every x402 payer's account subject starts with this; no person's subject may (the dashboard's link refuses it). */
export const X402_SUBJECT_PREFIX = 'x402:';

/** Whether a subject is an x402 payer's account, which is always billed prepaid (its payments are its grants). */
export function isX402Subject(subject: string): boolean {
  return subject.startsWith(X402_SUBJECT_PREFIX);
}

/** The account of a payer: `x402:<network>:<address>`, the address in lower case so that one wallet is one account. */
export function x402Subject(network: string, address: string): string {
  return `${X402_SUBJECT_PREFIX}${network}:${address.toLowerCase()}`;
}
