import { expect } from 'chai';
import { maximalSize } from '../../doctor/response-size';
import { THINGS_PAGE_LIMIT } from '../../shared/contract/operations/list-things';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';

for (const backend of BACKENDS) {
  describe(`things [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend);
    });
    after(async () => c.close());

    it('POST /v1/things answers 201 with the saved thing and an unguessable prefixed id', async () => {
      const token = await c.link(newSubject());
      const res = await c.call('POST', '/v1/things', { token, body: { name: 'Groceries', notes: 'milk, eggs' } });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ name: 'Groceries', notes: 'milk, eggs' });
      expect(res.body.id).to.match(/^thing_[A-Za-z0-9_-]{22}$/);
      const bare = await c.call('POST', '/v1/things', { token, body: { name: 'No notes' } });
      expect(bare.body.notes).to.equal(null);
    });

    it('a name that is empty or over 200 characters, notes over 2000, or an unknown field answer 400 with the field paths', async () => {
      const token = await c.link(newSubject());
      const cases: Array<[unknown, string]> = [
        [{ name: '' }, '/body/name'],
        [{ name: 'x'.repeat(201) }, '/body/name'],
        [{ name: 'a', notes: 'x'.repeat(2001) }, '/body/notes'],
        [{ name: 'a', colour: 'red' }, '/body/colour'],
        [{}, '/body/name'],
      ];
      for (const [body, path] of cases) {
        const res = await c.call('POST', '/v1/things', { token, body });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.errors.map((e: any) => e.path)).to.include(path);
      }
      expect((await c.call('GET', '/v1/things', { token })).body.items).to.have.length(0);
    });

    it('GET /v1/things pages newest first with limit and cursor and ends with next_cursor null', async () => {
      const token = await c.link(newSubject());
      const names = Array.from({ length: 7 }, (_, i) => `thing ${i}`);
      for (const name of names) await c.call('POST', '/v1/things', { token, body: { name } });
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: any = await c.call('GET', `/v1/things?limit=3${cursor ? `&cursor=${cursor}` : ''}`, { token });
        expect(res.status).to.equal(200);
        seen.push(...res.body.items.map((t: any) => t.name));
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor);
      expect(seen).to.deep.equal([...names].reverse());
      expect(pages).to.equal(3);
    });

    it('the default page holds 25 things', async () => {
      const token = await c.link(newSubject());
      await Promise.all(Array.from({ length: 26 }, (_, i) => c.call('POST', '/v1/things', { token, body: { name: `n${i}` } })));
      const res = await c.call('GET', '/v1/things', { token });
      expect(res.body.items).to.have.length(25);
      expect(res.body.next_cursor).to.be.a('string');
    });

    it('a page stays correct when things are added between page requests', async () => {
      const token = await c.link(newSubject());
      for (const name of ['a', 'b', 'c', 'd']) await c.call('POST', '/v1/things', { token, body: { name } });
      const first = await c.call('GET', '/v1/things?limit=2', { token });
      await c.call('POST', '/v1/things', { token, body: { name: 'e' } });
      const second = await c.call('GET', `/v1/things?limit=2&cursor=${first.body.next_cursor}`, { token });
      expect(first.body.items.map((t: any) => t.name)).to.deep.equal(['d', 'c']);
      expect(second.body.items.map((t: any) => t.name)).to.deep.equal(['b', 'a']);
    });

    it("a subject never sees another subject's things", async () => {
      const alice = await c.link(newSubject());
      const bob = await c.link(newSubject());
      await c.call('POST', '/v1/things', { token: alice, body: { name: 'secret plan' } });
      const res = await c.call('GET', '/v1/things', { token: bob });
      expect(res.body.items).to.deep.equal([]);
    });

    it('limit outside 1..40, an unknown query parameter or a forged cursor answer 400', async () => {
      const token = await c.link(newSubject());
      for (const query of ['limit=0', 'limit=41', 'limit=100', 'limit=abc', 'sort=asc', 'cursor=not-a-cursor', 'cursor=%00']) {
        expect((await c.call('GET', `/v1/things?${query}`, { token })).status, query).to.equal(400);
      }
      const over = await c.call('GET', '/v1/things?limit=41', { token });
      expect(over.body.errors.map((e: any) => e.path)).to.include('/query/limit');
    });

    it('a full page of 40 things at their largest lists each whole, under 100,000 characters and the size the doctor computes', async () => {
      const token = await c.link(newSubject());
      const notes = 'x'.repeat(2000);
      for (let i = 0; i < THINGS_PAGE_LIMIT; i++) {
        const name = `${i}`.padStart(200, 'n');
        expect((await c.call('POST', '/v1/things', { token, body: { name, notes } })).status).to.equal(201);
      }
      const page = await c.call('GET', `/v1/things?limit=${THINGS_PAGE_LIMIT}`, { token });
      expect(page.status).to.equal(200);
      expect(page.body.items).to.have.length(THINGS_PAGE_LIMIT);
      expect(page.body.items.every((thing: any) => thing.notes === notes)).to.equal(true);
      const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
      const bound = maximalSize(document, document.components.schemas.ThingPage, THINGS_PAGE_LIMIT);
      expect('length' in bound && bound.length, JSON.stringify(bound))
        .to.be.a('number')
        .below(100_000);
      expect(page.text.length).to.be.at.most((bound as { length: number }).length);
    });
  });
}
