/** A connection as `GET /v1/link/connections` lists it. */
export interface Connection {
  connection_id: string;
  subject: string;
  kind: 'link' | 'oauth';
  client: { client_id: string; client_name: string } | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  revoked: boolean;
}

/** One movement of the person's credits, as `GET /v1/link/credits` lists it. */
export interface CreditEntry {
  id: string;
  kind: 'grant' | 'adjustment' | 'hold' | 'capture' | 'release';
  credits: number;
  at: string;
  grant_id?: string;
  job_id?: string;
  note?: string;
}

/** The person's credit account and one page of its entries, newest first. */
export interface CreditStatement {
  balance: number;
  held: number;
  entries: CreditEntry[];
  next_cursor: string | null;
}

/** A pending OAuth request, as the consent screen shows it. */
export interface PendingRequest {
  request: string;
  client: { client_id: string; client_name: string; redirect_scheme: string; redirect_host: string };
  expires_at: string;
}

/** The connector answered with an error status (its problem+json body is not passed on to the browser). */
export class ConnectorError extends Error {
  constructor(
    readonly status: number,
    what: string,
  ) {
    super(`${what} answered ${status}`);
  }
}

/**
 * The dashboard's side of the connector: every call is server to server with `x-link-secret`, which never
 * reaches a browser.
 */
export function connectorClient(connectorUrl: string, linkSecret: string) {
  const base = connectorUrl.replace(/\/+$/, '');
  async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const res = await fetch(base + path, {
      method,
      headers: { 'x-link-secret': linkSecret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'error',
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) throw new ConnectorError(res.status, `${method} ${path.split('?')[0]}`);
    return (await res.json()) as T;
  }
  const request = (id: string) => `/v1/link/authorizations/${encodeURIComponent(id)}`;
  return {
    /** Mints a token for the person: a new connection each time. */
    link: (subject: string) => call<{ token: string; connection_id: string; expires_at: string }>('POST', '/v1/link', { subject }),
    /** One page of the person's live connections, newest first. */
    connections: (subject: string, cursor?: string) =>
      call<{ items: Connection[]; next_cursor: string | null }>(
        'GET',
        `/v1/link/connections?${new URLSearchParams({ subject, ...(cursor ? { cursor } : {}) })}`,
      ),
    /** Credits charged in total and per UTC day over the last 30 days, today first. */
    usage: (subject: string) =>
      call<{ credits_spent: number; jobs_charged: number; days: Array<{ date: string; credits: number }> }>(
        'GET',
        `/v1/link/usage?${new URLSearchParams({ subject, days: '30' })}`,
      ),
    revoke: (connectionId: string) => call<{ revoked: number }>('POST', '/v1/link/revoke', { connection_id: connectionId }),
    /** The person's balance, held credits and latest entries. */
    credits: (subject: string) => call<CreditStatement>('GET', `/v1/link/credits?${new URLSearchParams({ subject, limit: '10' })}`),
    /**
     * Grants credits once per `grantId`: the id of the purchase (a checkout session id), so that retrying after
     * a lost answer never grants twice. A 409 means the connector bills metered (no balances).
     */
    grant: (subject: string, credits: number, grantId: string, note: string) =>
      call<CreditStatement & { grant: CreditEntry }>('POST', '/v1/link/credits', { subject, credits, grant_id: grantId, note }),
    describeRequest: (id: string) => call<PendingRequest>('GET', request(id)),
    /** Approves for a subject or denies; answers where to send the browser. */
    answerRequest: (id: string, answer: { subject: string } | { deny: true }) => call<{ redirect_to: string }>('POST', request(id), answer),
  };
}
