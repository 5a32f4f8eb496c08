import type { Page } from '../../platform/pagination/page';
import { newId } from '../../platform/util/ids';
import { normalizeSubject } from '../subjects/normalize-subject';
import { type ConnectionQuery, pageConnections } from './connection-page';
import type { Connection, ConnectionStore } from './connection-store';
import type { ConnectionView } from './connection-view';
import type { TokenService } from './token-service';

/** What the dashboard receives when it links a subject. */
export interface LinkResult {
  token: string;
  token_type: 'Bearer';
  connection_id: string;
  subject: string;
  expires_at: string;
  revoke_url: string;
}

/** Observers of linking and revoking; metrics hook here. */
export interface LinkServiceHooks {
  /** A token was minted for a new connection. */
  onIssued?(): void;
  /** `count` connections were newly revoked (0 when they already were). */
  onRevoked?(count: number): void;
}

/** What a {@link LinkService} works with. */
export interface LinkServiceDependencies {
  connections: ConnectionStore;
  tokens: TokenService;
  /** How long a minted token lives. */
  tokenTtlSeconds: number;
  /** Where the dashboard revokes a connection, handed out with each token. */
  revokeUrl: string;
  hooks?: LinkServiceHooks;
}

/** Mints connections and tokens for the dashboard, lists them and revokes them. */
export class LinkService {
  constructor(private readonly deps: LinkServiceDependencies) {}

  /** Creates a new connection for the subject and a token for it. */
  async link(rawSubject: string): Promise<LinkResult> {
    const subject = normalizeSubject(rawSubject);
    const issuedAt = Math.floor(Date.now() / 1000);
    const connection = { id: newId('conn'), subject, issuedAt, expiresAt: issuedAt + this.deps.tokenTtlSeconds, revoked: false };
    await this.deps.connections.create(connection);
    this.deps.hooks?.onIssued?.();
    return this.tokenFor(connection);
  }

  /**
   * The token of an x402 payer (docs/decisions/x402-payer-token.md): its newest connection that is neither
   * revoked nor an OAuth grant while at least half the token lifetime is left on it, signed again; otherwise a
   * new one ({@link link}). So a busy payer keeps about one live connection per half lifetime, not one per paid
   * answer, and a revoke still ends it: the next paid answer then makes a new one.
   */
  async payerLink(rawSubject: string): Promise<LinkResult> {
    const subject = normalizeSubject(rawSubject);
    const fresh = Math.floor(Date.now() / 1000) + Math.ceil(this.deps.tokenTtlSeconds / 2);
    const reusable = (await this.deps.connections.list(subject))
      .filter((connection) => !connection.revoked && !connection.client && connection.expiresAt >= fresh)
      .sort((a, b) => b.issuedAt - a.issuedAt)[0];
    return reusable ? this.tokenFor(reusable) : this.link(subject);
  }

  private tokenFor({ id, subject, issuedAt, expiresAt }: Connection): LinkResult {
    return {
      token: this.deps.tokens.sign(subject, id, issuedAt, expiresAt),
      token_type: 'Bearer',
      connection_id: id,
      subject,
      expires_at: new Date(expiresAt * 1000).toISOString(),
      revoke_url: this.deps.revokeUrl,
    };
  }

  /** A page of the subject's connections (normalised as {@link link} does), newest first. */
  async list(rawSubject: string, query: ConnectionQuery): Promise<Page<ConnectionView>> {
    const subject = normalizeSubject(rawSubject, '/query/subject');
    return pageConnections(await this.deps.connections.list(subject), query);
  }

  /** Revokes one connection or all of a subject's; resolves to how many were newly revoked. */
  async revoke(target: { connection_id?: string; subject?: string }): Promise<number> {
    const count =
      target.connection_id !== undefined
        ? await this.deps.connections.revoke(target.connection_id)
        : await this.deps.connections.revokeSubject(normalizeSubject(target.subject ?? ''));
    if (count > 0) this.deps.hooks?.onRevoked?.(count);
    return count;
  }
}
