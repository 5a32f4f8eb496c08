/** An authorization request waiting for the person's answer at the consent screen. */
export interface PendingRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  state?: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** What an authorization code stands for until it is exchanged. */
export interface CodeGrant {
  connectionId: string;
  subject: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
}

/** What a refresh token stands for; the token itself is only ever stored hashed. */
export interface RefreshGrant {
  connectionId: string;
  subject: string;
  clientId: string;
}

/** The redirect URI with the answer's parameters appended (RFC 6749 §4.1.2, with RFC 9207's `iss`). */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
