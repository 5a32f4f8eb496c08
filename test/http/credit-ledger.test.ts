import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { expectRunningAccount, moneyClient, placeholderOperation } from '../support/money-flows';

const newGrantId = () => `cs_test_${randomBytes(8).toString('hex')}`;

/** The dashboard's ledger reads on one connector. */
function ledgerOf(connector: ConnectorUnderTest) {
  const headers = { 'x-link-secret': connector.config.linkSecret };
  const get = (path: string) => connector.call('GET', path, { headers });
  return {
    grant: (subject: string, credits: number) =>
      connector.call('POST', '/v1/link/credits', { body: { subject, credits, grant_id: newGrantId() }, headers }),
    statement: (query: string) => get(`/v1/link/credits?${query}`),
    summary: () => get('/v1/link/credits/summary'),
    /** The export's raw answer, fetched directly (it is not JSON). */
    exportRaw: (query = '') => fetch(`${connector.baseUrl}/v1/link/credits/export${query ? `?${query}` : ''}`, { headers }),
    async exportLines(query = ''): Promise<Array<Record<string, any>>> {
      const res = await this.exportRaw(query);
      expect(res.status, await res.clone().text()).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/x-ndjson/);
      const text = await res.text();
      return text
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line));
    },
  };
}

for (const kind of BACKENDS) {
  describe(`credit statements, export and summary over HTTP, BILLING_MODE=prepaid [${kind}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    let ledger: ReturnType<typeof ledgerOf>;

    before(async () => {
      connector = await startConnector(kind, { BILLING_MODE: 'prepaid' });
      ledger = ledgerOf(connector);
    });
    after(async () => connector?.close());

    it('every entry carries the account just after it: grants, an adjustment, a job hold and its capture', async () => {
      const subject = newSubject();
      const token = await connector.link(subject);
      await ledger.grant(subject, 30);
      await ledger.grant(subject, -4);
      const { operation, input, price } = placeholderOperation();
      const api = moneyClient(connector);
      const accepted = await api.submit(token, operation, input);
      expect(accepted.status, accepted.text).to.equal(202);
      await api.final(token, accepted.body.id);
      const statement = await api.statement(subject);
      expect(statement.entries.map((entry) => entry.kind)).to.deep.equal(['capture', 'hold', 'adjustment', 'grant']);
      expect(statement.entries[0]).to.include({ balance_after: 26 - price, held_after: 0 });
      expectRunningAccount(statement.entries);
    });

    it('since and until keep the entries of the period (since included, until excluded); an empty or bad period is 400', async () => {
      const subject = newSubject();
      for (const credits of [1, 2, 3]) expect((await ledger.grant(subject, credits)).status).to.equal(201);
      const all = (await ledger.statement(`subject=${encodeURIComponent(subject)}`)).body.entries as Array<{ at: string; credits: number }>;
      const [newest, middle, oldest] = all;
      const since = await ledger.statement(`subject=${encodeURIComponent(subject)}&since=${encodeURIComponent(middle.at)}`);
      expect(since.body.entries.map((entry: { credits: number }) => entry.credits)).to.deep.equal(
        all.filter((entry) => entry.at >= middle.at).map((entry) => entry.credits),
      );
      const until = await ledger.statement(`subject=${encodeURIComponent(subject)}&until=${encodeURIComponent(newest.at)}`);
      expect(until.body.entries.map((entry: { credits: number }) => entry.credits)).to.deep.equal(
        all.filter((entry) => entry.at < newest.at).map((entry) => entry.credits),
      );
      expect(until.body.entries.map((entry: { credits: number }) => entry.credits)).to.include(oldest.credits);
      const later = new Date(Date.now() + 3_600_000).toISOString();
      expect(
        (await ledger.statement(`subject=${encodeURIComponent(subject)}&since=${encodeURIComponent(later)}`)).body.entries,
      ).to.deep.equal([]);
      const empty = await ledger.statement(
        `subject=${encodeURIComponent(subject)}&since=${encodeURIComponent(later)}&until=${encodeURIComponent(oldest.at)}`,
      );
      expect(empty.status, empty.text).to.equal(400);
      expect((await ledger.statement(`subject=${encodeURIComponent(subject)}&since=yesterday`)).status).to.equal(400);
    });

    it('the summary adds up every account and the identity holds; a grant and a job move its figures by their amounts', async () => {
      const before = await ledger.summary();
      expect(before.status, before.text).to.equal(200);
      expect(before.body.reconciles).to.equal(true);
      const subject = newSubject();
      const token = await connector.link(subject);
      await ledger.grant(subject, 50);
      await ledger.grant(subject, -5);
      const { operation, input, price } = placeholderOperation();
      const api = moneyClient(connector);
      const accepted = await api.submit(token, operation, input);
      await api.final(token, accepted.body.id);
      const after = (await ledger.summary()).body;
      expect(after.granted - before.body.granted).to.equal(50);
      expect(after.adjusted - before.body.adjusted).to.equal(-5);
      expect(after.captured - before.body.captured).to.equal(price);
      expect(after.balance - before.body.balance).to.equal(45 - price);
      expect(after.accounts - before.body.accounts).to.equal(1);
      expect(after.granted + after.adjusted - after.captured - after.expired - after.voided).to.equal(after.balance + after.held);
      expect(after.reconciles).to.equal(true);
    });

    it('the export streams every account as NDJSON, each line with its subject, in one stable order, resumable by cursor', async () => {
      const [first, second] = [newSubject(), newSubject()];
      for (const subject of [first, second]) for (const credits of [1, 2]) await ledger.grant(subject, credits);
      const lines = await ledger.exportLines();
      const ours = lines.filter((line) => line.subject === first || line.subject === second);
      expect(ours).to.have.length(4);
      for (const subject of [first, second]) {
        expect(
          ours.filter((line) => line.subject === subject).map((line) => line.credits),
          'oldest first',
        ).to.deep.equal([1, 2]);
      }
      for (const line of lines)
        expect(line).to.include.keys('id', 'kind', 'credits', 'at', 'balance_after', 'held_after', 'subject', 'cursor');
      expect(await ledger.exportLines(), 'the same order again').to.deep.equal(lines);
      const cut = Math.floor(lines.length / 2);
      const resumed = await ledger.exportLines(`cursor=${encodeURIComponent(lines[cut - 1].cursor)}`);
      expect(resumed).to.deep.equal(lines.slice(cut));
      expect((await ledger.exportRaw('cursor=forged')).status).to.equal(400);
    });

    it('the export keeps the period: since drops what came before it', async () => {
      const subject = newSubject();
      await ledger.grant(subject, 7);
      const lines = await ledger.exportLines();
      const mine = lines.find((line) => line.subject === subject)!;
      const later = await ledger.exportLines(`since=${encodeURIComponent(new Date(Date.parse(mine.at) + 1).toISOString())}`);
      expect(later.map((line) => line.id)).not.to.include(mine.id);
      expect(later.every((line) => line.at > mine.at)).to.equal(true);
    });

    it('the summary and the export need the link secret (401 without it)', async () => {
      expect((await connector.call('GET', '/v1/link/credits/summary')).status).to.equal(401);
      expect((await fetch(`${connector.baseUrl}/v1/link/credits/export`)).status).to.equal(401);
    });
  });
}
