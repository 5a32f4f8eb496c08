import { expect } from 'chai';
import { cleanEnv } from 'envalid';
import { isLoopbackListener, listenHostAddress, resolveListenHost } from '../../../../../shared/platform/config/listen-host';

describe('the listen address (HOST)', () => {
  it('HOST accepts IPv4 and IPv6 addresses, trimmed', () => {
    expect(cleanEnv({ HOST: ' ::1 ' }, { HOST: listenHostAddress() }).HOST).to.equal('::1');
    expect(cleanEnv({ HOST: '0.0.0.0' }, { HOST: listenHostAddress() }).HOST).to.equal('0.0.0.0');
  });

  it('HOST refuses a name that is not an address, saying what it expects', () => {
    const errors: string[] = [];
    cleanEnv(
      { HOST: 'localhost' },
      { HOST: listenHostAddress() },
      { reporter: ({ errors: found }) => errors.push(...Object.values(found).map(String)) },
    );
    expect(errors).to.have.length(1);
    expect(errors[0]).to.contain('must be an IPv4 or IPv6 address');
  });

  it('HOST set: wins over PUBLIC_URL, and "::" becomes undefined (every interface)', () => {
    expect(resolveListenHost('10.0.0.5', 'http://localhost:8787')).to.equal('10.0.0.5');
    expect(resolveListenHost('::', 'http://localhost:8787')).to.equal(undefined);
  });

  it('HOST unset and a loopback PUBLIC_URL: the matching loopback address', () => {
    expect(resolveListenHost(undefined, 'http://localhost:8787')).to.equal('127.0.0.1');
    expect(resolveListenHost(undefined, 'http://127.0.0.1:8787')).to.equal('127.0.0.1');
    expect(resolveListenHost(undefined, 'http://[::1]:8787')).to.equal('::1');
  });

  it('HOST unset and a public PUBLIC_URL: undefined, every interface', () => {
    expect(resolveListenHost(undefined, 'https://api.example.com')).to.equal(undefined);
  });

  it('isLoopbackListener: true for 127.0.0.0/8, ::1 and IPv4-mapped 127.x; false for others and for every interface', () => {
    for (const host of ['127.0.0.1', '127.4.5.6', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2'])
      expect(isLoopbackListener(host), host).to.equal(true);
    for (const host of [undefined, '0.0.0.0', '10.0.0.1', '::', '::ffff:10.0.0.1', '128.0.0.1'])
      expect(isLoopbackListener(host), String(host)).to.equal(false);
  });
});
