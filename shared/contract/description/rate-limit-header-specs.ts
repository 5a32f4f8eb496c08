import type { HeaderSpec } from '../operations/operation';

/**
 * The draft-ietf-httpapi-ratelimit-headers fields as the documents declare them. Every operation is rate
 * limited, so its success answers and its 429 always carry both; a counted authentication failure (401)
 * carries them for the `auth-failures` policy.
 */
export function rateLimitHeaderSpecs(required: boolean): Record<string, HeaderSpec> {
  return {
    'RateLimit-Policy': {
      description: 'The quota policies that apply, e.g. "subject";q=120;w=60 (q requests per w seconds).',
      schema: { type: 'string' },
      required,
    },
    RateLimit: {
      description: 'What is left of each policy, e.g. "subject";r=119;t=42 (r requests left, t seconds until the window resets).',
      schema: { type: 'string' },
      required,
    },
  };
}
