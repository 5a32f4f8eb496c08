import { expect } from 'chai';
import { toConnectionView } from '../../../../../shared/domain/connections/connection-view';

const BASE = { id: 'conn-1', subject: 'user-1', issuedAt: 1_700_000_000, expiresAt: 1_700_086_400, revoked: false };

describe("toConnectionView (the dashboard's view of a connection)", () => {
  it('a link connection never used: kind link, no client, times as ISO strings, last_used_at null', () => {
    expect(toConnectionView(BASE)).to.deep.equal({
      connection_id: 'conn-1',
      subject: 'user-1',
      kind: 'link',
      client: null,
      created_at: '2023-11-14T22:13:20.000Z',
      last_used_at: null,
      expires_at: '2023-11-15T22:13:20.000Z',
      revoked: false,
    });
  });

  it('an OAuth grant, used and revoked: kind oauth with its client, last use as an ISO string', () => {
    const view = toConnectionView({
      ...BASE,
      revoked: true,
      client: { id: 'client-9', name: 'Assistant' },
      lastUsedAt: 1_700_000_060,
    } as never);
    expect(view).to.include({ kind: 'oauth', revoked: true, last_used_at: '2023-11-14T22:14:20.000Z' });
    expect(view.client).to.deep.equal({ client_id: 'client-9', client_name: 'Assistant' });
  });
});
