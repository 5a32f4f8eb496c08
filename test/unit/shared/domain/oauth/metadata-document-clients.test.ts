import { expect } from 'chai';
import { MemoryOAuthStateStore } from '../../../../../shared/adapters/memory/memory-oauth-state-store';
import { MetadataDocumentClients } from '../../../../../shared/domain/oauth/metadata-document-clients';
import { OAuthProtocolError } from '../../../../../shared/domain/oauth/oauth-protocol-error';

/** The description an `invalid_client` refusal of `url` carries. */
async function refusalOf(clients: MetadataDocumentClients, url: string): Promise<string> {
  return clients.find(url).then(
    () => expect.fail(`${url} was accepted`),
    (error: unknown) => {
      expect(error).to.be.instanceOf(OAuthProtocolError);
      expect((error as OAuthProtocolError).error).to.equal('invalid_client');
      return (error as OAuthProtocolError).description;
    },
  );
}

describe('clients named by a metadata document (MetadataDocumentClients)', () => {
  it('refuses, before any fetch, a client_id that is not an https URL of a document', async () => {
    const clients = new MetadataDocumentClients(new MemoryOAuthStateStore());
    expect(await refusalOf(clients, 'http://app.example/client.json')).to.equal('the client_id must be an https URL');
    for (const url of [
      'https://app.example/',
      'https://app.example/client.json#x',
      'https://u:p@app.example/c',
      'https://app.example/a/../c',
    ])
      expect(await refusalOf(clients, url), url).to.equal('the client_id URL is not a valid metadata document URL');
    expect(await refusalOf(clients, 'https://')).to.equal('the client is not known');
  });

  it('remembers a failed fetch in the store, so asking again reads the refusal instead of fetching', async () => {
    const store = new MemoryOAuthStateStore();
    const clients = new MetadataDocumentClients(store);
    const url = 'https://127.0.0.1/client.json';
    expect(await refusalOf(clients, url)).to.equal('the client metadata host is not on the public internet');
    expect(JSON.parse((await store.get('cimd', url))!)).to.deep.equal({
      refused: 'the client metadata host is not on the public internet',
    });
    await store.put('cimd', url, JSON.stringify({ refused: 'remembered' }), 60);
    expect(await refusalOf(clients, url)).to.equal('remembered');
  });

  it('serves a remembered client from the store, its name made showable', async () => {
    const store = new MemoryOAuthStateStore();
    const url = 'https://127.0.0.1/app.json';
    const client = { clientId: url, clientName: 'App\u202e', redirectUris: ['https://app.example/cb'] };
    await store.put('cimd', url, JSON.stringify(client), 300);
    const found = await new MetadataDocumentClients(store).find(url);
    expect(found).to.deep.include({ clientId: url, redirectUris: ['https://app.example/cb'] });
    expect(found.clientName).not.to.include('\u202e');
  });
});
