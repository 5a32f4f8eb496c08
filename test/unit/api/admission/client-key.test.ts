import { expect } from 'chai';
import type { Request } from 'express';
import { clientKeyOf } from '../../../../api/admission/client-key';

const request = (ip: string | undefined) => ({ ip }) as Request;

describe('clientKeyOf', () => {
  it('an IPv4 client: keyed by its address as Express resolved it', () => {
    expect(clientKeyOf(64)(request('192.0.2.7'))).to.equal('192.0.2.7');
  });

  it('two IPv6 clients of one network: one key, the network of the configured prefix', () => {
    const key = clientKeyOf(64);
    expect(key(request('2001:db8:1:2::a'))).to.equal('2001:db8:1:2::/64');
    expect(key(request('2001:db8:1:2:ffff::1'))).to.equal('2001:db8:1:2::/64');
  });

  it('a different prefix: the network is cut at that many bits', () => {
    expect(clientKeyOf(48)(request('2001:db8:1:2::a'))).to.equal('2001:db8:1::/48');
  });

  it('no address: the shared key "unknown"', () => {
    expect(clientKeyOf(64)(request(undefined))).to.equal('unknown');
  });
});
