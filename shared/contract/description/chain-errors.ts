/**
 * Statuses the shared request chain (authentication, rate limit, body parser, validator, backend) can answer
 * for any operation, whatever the operation lists: a GET with an unknown query parameter or an unwanted body
 * still gets a 400, 413 or 415. The document declares them on every operation so that it tells the truth.
 */
export const CHAIN_ERRORS: readonly number[] = [400, 401, 413, 415, 429, 500, 503];
