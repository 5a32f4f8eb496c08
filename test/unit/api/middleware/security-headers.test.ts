import { expect } from 'chai';
import { SECURITY_HEADERS, setOperationAnswerHeaders, setSecurityHeaders } from '../../../../api/middleware/security-headers';
import { recordingResponse } from '../../../support/recording-response';

/** OWASP's REST Security Cheat Sheet set, less the two each route sets itself (lower-case names). */
const OWASP_SET = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

describe('security headers', () => {
  it('any answer: exactly the four fixed headers', () => {
    const { res, headers } = recordingResponse();
    setSecurityHeaders(res);
    expect(Object.fromEntries(headers)).to.deep.equal(OWASP_SET);
  });

  it('an operation’s answer gets the same four and Cache-Control: no-store', () => {
    const { res, headers } = recordingResponse();
    setOperationAnswerHeaders(res);
    expect(Object.fromEntries(headers)).to.deep.equal({ ...OWASP_SET, 'cache-control': 'no-store' });
  });

  it('the list names no header twice, and no page-only or cookie-only header', () => {
    const names = SECURITY_HEADERS.map(([name]) => name.toLowerCase());
    expect(new Set(names).size).to.equal(names.length);
    expect(names).to.not.include.members(['referrer-policy', 'cross-origin-resource-policy', 'x-xss-protection']);
  });
});
