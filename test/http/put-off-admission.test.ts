import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import type { CallResult } from '../support/checked-client';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { submitJob } from '../support/job-submission';
import { postLink } from '../support/link-requests';
import { scrape, sumOf } from '../support/prometheus-text';

const PER_MINUTE = 3;
/** A member no paid body declares: the document refuses it (400) once the body is read. */
const REFUSED_BODY = { body: { not_a_member: true } };

/** `r` of the subject's member of a RateLimit field. */
function remaining(answer: CallResult): number | undefined {
  const match = /"subject";r=(\d+);t=\d+/.exec(answer.headers.get('ratelimit') ?? '');
  return match ? Number(match[1]) : undefined;
}

// On Redis a paid job's admission is made by its claim's script (api/admission/put-off-admission.ts), in
// memory before its body: from outside, both answer and count alike.
for (const backend of BACKENDS) {
  describe(`a paid job's admission, made with its claim where the backend can [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) });
    });
    after(async () => c?.close());

    const submitted = async (): Promise<number> => sumOf(await scrape(c.metricsUrl), 'connector_jobs_submitted_total');
    const linked = async (subject = newSubject()): Promise<{ token: string; connectionId: string }> => {
      const link = await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET });
      expect(link.status, link.text).to.equal(201);
      return { token: link.body.token, connectionId: link.body.connection_id };
    };

    it('calls within the quota are accepted, each counted once (r falls by one), and the one past it is a 429 that accepts nothing', async () => {
      const { token } = await linked();
      const before = await submitted();
      const left: Array<number | undefined> = [];
      for (let i = 0; i < PER_MINUTE; i++) {
        const accepted = await submitJob(c, token);
        expect(accepted.status, accepted.text).to.equal(202);
        left.push(remaining(accepted));
      }
      expect(left).to.deep.equal([2, 1, 0]);
      const refused = await submitJob(c, token);
      expect(refused.status, refused.text).to.equal(429);
      expect(remaining(refused)).to.equal(0);
      expect(await submitted(), 'only the accepted calls made jobs').to.equal(before + PER_MINUTE);
    });

    it('past the quota, a body the document refuses is still answered 429, not 400', async () => {
      const { token } = await linked();
      for (let i = 0; i < PER_MINUTE; i++) expect((await submitJob(c, token)).status).to.equal(202);
      const refused = await submitJob(c, token, REFUSED_BODY);
      expect(refused.status, refused.text).to.equal(429);
    });

    it('within the quota, a body the document refuses is a 400 that counts against the window', async () => {
      const { token } = await linked();
      const invalid = await submitJob(c, token, REFUSED_BODY);
      expect(invalid.status, invalid.text).to.equal(400);
      expect(remaining(invalid)).to.equal(PER_MINUTE - 1);
      const accepted = await submitJob(c, token);
      expect(accepted.status, accepted.text).to.equal(202);
      expect(remaining(accepted)).to.equal(PER_MINUTE - 2);
    });

    it('a revoked token is a 401, whatever its body or key, accepts nothing, and leaves the subject’s window untouched', async () => {
      const subject = newSubject();
      const { token, connectionId } = await linked(subject);
      const revoked = await c.call('POST', '/v1/link/revoke', {
        body: { connection_id: connectionId },
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      expect(revoked.body).to.deep.equal({ revoked: 1 });
      const before = await submitted();
      for (const answer of [await submitJob(c, token), await submitJob(c, token, REFUSED_BODY), await submitJob(c, token, { key: null })]) {
        expect(answer.status, answer.text).to.equal(401);
        expect(answer.headers.get('www-authenticate')).to.match(/^Bearer /);
      }
      expect(await submitted()).to.equal(before);
      const live = await linked(subject);
      const accepted = await submitJob(c, live.token);
      expect(accepted.status, accepted.text).to.equal(202);
      expect(remaining(accepted), 'the refused calls hit no window').to.equal(PER_MINUTE - 1);
    });
  });
}
