import { expect } from 'chai';
import { cleanEnv, type ValidatorSpec } from 'envalid';
import {
  consentUrl,
  httpsUrl,
  intInRange,
  matching,
  mustMatch,
  originList,
  publicUrl,
  redisUrl,
  secretOfAtLeast,
  secureOrLoopbackUrl,
  sharedSecretOfAtLeast,
} from '../../../../../shared/platform/config/validators';

/** The value `spec` reads from `input`, or the message it refuses it with. */
function read<T>(spec: ValidatorSpec<T>, input: string): T | string {
  let refused: string | undefined;
  const env = cleanEnv({ V: input }, { V: spec }, { reporter: ({ errors }) => (refused = errors.V?.message) });
  return refused ?? env.V;
}

describe('configuration validators', () => {
  it('secureOrLoopbackUrl: https anywhere, http only on an exact loopback host', () => {
    expect(secureOrLoopbackUrl('https://api.example.com/x').href).to.equal('https://api.example.com/x');
    expect(secureOrLoopbackUrl('http://[::1]:8787').hostname).to.equal('[::1]');
    expect(() => secureOrLoopbackUrl('http://localhost.evil.com')).to.throw('must use https');
  });

  it('secureOrLoopbackUrl refuses credentials, a fragment, a query unless allowed, and a relative URL', () => {
    expect(() => secureOrLoopbackUrl('https://u:p@host.example')).to.throw('must not carry credentials');
    expect(() => secureOrLoopbackUrl('https://host.example/?a=1')).to.throw('must not have a query or fragment');
    expect(secureOrLoopbackUrl('https://host.example/?a=1', { allowQuery: true }).search).to.equal('?a=1');
    expect(() => secureOrLoopbackUrl('https://host.example/#x', { allowQuery: true })).to.throw('must not have a fragment');
    expect(() => secureOrLoopbackUrl('/relative')).to.throw('must be an absolute URL');
  });

  it('PUBLIC_URL: without trailing slashes; CONSENT_URL: trimmed, loopback http allowed', () => {
    expect(read(publicUrl(), 'https://api.example.com/base/')).to.equal('https://api.example.com/base');
    expect(read(consentUrl(), ' http://localhost:3000/consent ')).to.equal('http://localhost:3000/consent');
    expect(read(consentUrl(), 'http://dashboard.example.com/consent')).to.contain('must use https');
  });

  it('DASHBOARD_URL: https only, even on loopback', () => {
    expect(read(httpsUrl(), 'https://dashboard.example.com')).to.equal('https://dashboard.example.com');
    expect(read(httpsUrl(), 'http://localhost:3000')).to.equal('must use https');
  });

  it('secrets: at least the minimum length; a shared secret also not blank or one character repeated', () => {
    expect(read(secretOfAtLeast(4)(), 'abcd')).to.equal('abcd');
    expect(read(secretOfAtLeast(4)(), 'abc')).to.equal('must be at least 4 characters');
    expect(read(sharedSecretOfAtLeast(4)(), 'aaaaaaa')).to.equal('must not be blank or one character repeated');
    expect(read(sharedSecretOfAtLeast(4)(), '       ')).to.equal('must not be blank or one character repeated');
    expect(read(sharedSecretOfAtLeast(4)(), 'abab')).to.equal('abab');
  });

  it('intInRange: whole numbers within the bounds, both included', () => {
    expect(read(intInRange(1, 10)(), ' 10 ')).to.equal(10);
    expect(read(intInRange(0, 10)(), '-0')).to.equal(0);
    expect(read(intInRange(-5, 5)(), '-5')).to.equal(-5);
  });

  it('intInRange: a whole number outside the range, negative or too large, is refused naming the range', () => {
    for (const input of ['0', '-5', '11', '99999999999999999999'])
      expect(read(intInRange(1, 10)(), input), input).to.equal('must be between 1 and 10');
  });

  it('intInRange: a value that is not a whole number is refused as such, with the range', () => {
    for (const input of ['1.5', '-1.5', '30s', 'ten', '', '+', '1e3'])
      expect(read(intInRange(0, 10)(), input), input).to.equal('must be a whole number between 0 and 10');
  });

  it('matching: a string the pattern matches is read as given; another is refused naming the pattern, not the value', () => {
    const spec = matching(/^[a-z]{2}-[A-Z]{2}$/);
    expect(read(spec(), 'de-CH')).to.equal('de-CH');
    expect(read(spec(), 'German')).to.equal('must match the pattern ^[a-z]{2}-[A-Z]{2}$');
    expect(mustMatch(/^x+$/)).to.equal('must match the pattern ^x+$');
  });

  it('redisUrl: redis:// and rediss:// only', () => {
    expect(read(redisUrl(), 'rediss://cache:6380/0')).to.equal('rediss://cache:6380/0');
    for (const input of ['http://cache:6379', 'cache:6379', 'not a url'])
      expect(read(redisUrl(), input), input).to.equal('must be a redis:// or rediss:// URL');
  });

  it('originList: trimmed origins, empty items dropped; a path or another scheme refused', () => {
    expect(read(originList(), ' https://claude.ai , http://localhost:3000/,,')).to.deep.equal([
      'https://claude.ai',
      'http://localhost:3000',
    ]);
    for (const input of ['https://claude.ai/path', 'ftp://files.example', 'claude.ai'])
      expect(read(originList(), input), input).to.contain('must be a comma-separated list of origins');
  });
});
