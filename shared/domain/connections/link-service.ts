import type { Page } from '../../platform/pagination/page';
import { newId } from '../../platform/util/ids';
import { normalizeSubject } from '../subjects/normalize-subject';
import { type ConnectionQuery, pageConnections } from './connection-page';
import type { ConnectionStore } from './connection-store';
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
    const expiresAt = issuedAt + this.deps.tokenTtlSeconds;
    const id = newId('conn');
    await this.deps.connections.create({ id, subject, issuedAt, expiresAt, revoked: false });
    const token = this.deps.tokens.sign(subject, id, issuedAt, expiresAt);
    this.deps.hooks?.onIssued?.();
    return {
      token,
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
