import { expect } from 'chai';
import { newConfidentialClient, storeConfidentialClient } from '../../../../../shared/domain/oauth/confidential-client';
import type { OAuthStateStore } from '../../../../../shared/domain/oauth/oauth-state-store';
import { hashSecret } from '../../../../../shared/domain/oauth/opaque-secret';

describe('confidential clients (GPT Actions)', () => {
  it('a new client: a cc id, the trimmed name, its redirect URIs, and only the hash of the secret in the record', () => {
    const { record, secret } = newConfidentialClient('  My GPT ', ['https://chat.example.com/cb']);
    expect(record.client_id).to.match(/^cc/);
    expect(record).to.deep.include({
      client_name: 'My GPT',
      redirect_uris: ['https://chat.example.com/cb'],
      secret_sha256: hashSecret(secret),
    });
    expect(JSON.stringify(record)).to.not.contain(secret);
  });

  it('two clients: different ids and secrets', () => {
    const [a, b] = [newConfidentialClient('A', ['https://a.example/cb']), newConfidentialClient('A', ['https://a.example/cb'])];
    expect(a.record.client_id).to.not.equal(b.record.client_id);
    expect(a.secret).to.not.equal(b.secret);
  });

  it('a blank name or one over 100 characters: refused', () => {
    for (const name of ['   ', 'x'.repeat(101)])
      expect(() => newConfidentialClient(name, ['https://a.example/cb'])).to.throw('--name must be 1 to 100 characters');
    expect(newConfidentialClient('x'.repeat(100), ['https://a.example/cb']).record.client_name).to.have.length(100);
  });

  it('no redirect URI, an http one or one with a fragment: refused, naming the URI', () => {
    expect(() => newConfidentialClient('A', [])).to.throw('give at least one --redirect-uri');
    for (const uri of ['http://a.example/cb', 'https://a.example/cb#x'])
      expect(() => newConfidentialClient('A', ['https://ok.example/cb', uri])).to.throw(JSON.stringify(uri));
  });

  it('storing: the record as JSON under its id, kind client, without expiry', async () => {
    const puts: unknown[][] = [];
    const store = { put: async (...args: unknown[]) => void puts.push(args) } as unknown as OAuthStateStore;
    const { record } = newConfidentialClient('A', ['https://a.example/cb']);
    await storeConfidentialClient(store, record);
    expect(puts).to.deep.equal([['client', record.client_id, JSON.stringify(record), 0]]);
  });
});
