import { expect } from 'chai';
import { clientBlock } from '../../../../../shared/platform/net/client-block';

describe('clientBlock: the key a per-address limit counts a client under', () => {
  it('an IPv4 address is its own key', () => {
    expect(clientBlock('192.0.2.7', 64)).to.equal('192.0.2.7');
    expect(clientBlock('192.0.2.8', 64)).to.equal('192.0.2.8');
  });

  it('every spelling of one IPv6 address gives the key of its /64: compressed, expanded, upper case, a zone id, an IPv4 tail', () => {
    for (const spelling of [
      '2001:db8:1:2::5',
      '2001:0db8:0001:0002:0000:0000:0000:0005',
      '2001:DB8:1:2:0:0:0:5',
      '2001:db8:1:2::5%eth0',
      '2001:db8:1:2:0:0:0.0.0.5',
    ]) {
      expect(clientBlock(spelling, 64), spelling).to.equal('2001:db8:1:2::/64');
    }
  });

  it('addresses anywhere in one /64 share its key; the neighbouring /64s do not', () => {
    for (const inside of ['2001:db8:1:2::', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2:abcd::1']) {
      expect(clientBlock(inside, 64), inside).to.equal('2001:db8:1:2::/64');
    }
    expect(clientBlock('2001:db8:1:1:ffff:ffff:ffff:ffff', 64)).to.equal('2001:db8:1:1::/64');
    expect(clientBlock('2001:db8:1:3::', 64)).to.equal('2001:db8:1:3::/64');
  });

  it('CLIENT_IPV6_PREFIX sets the network: 48 groups a site, 128 counts each address, 56 cuts inside a group', () => {
    expect(clientBlock('2001:db8:1:2::5', 48)).to.equal('2001:db8:1::/48');
    expect(clientBlock('2001:db8:1:2::5', 128)).to.equal('2001:db8:1:2::5/128');
    expect(clientBlock('2001:db8:1:2ff::5', 56)).to.equal('2001:db8:1:200::/56');
    expect(clientBlock('2001:db8:1:3ff::5', 56)).to.equal('2001:db8:1:300::/56');
  });

  it('an IPv4-mapped IPv6 address, in either spelling, is the IPv4 address (not the one /64 all IPv4 clients map into)', () => {
    expect(clientBlock('::ffff:192.0.2.7', 64)).to.equal('192.0.2.7');
    expect(clientBlock('::FFFF:192.0.2.7', 64)).to.equal('192.0.2.7');
    expect(clientBlock('::ffff:c000:207', 64)).to.equal('192.0.2.7');
    expect(clientBlock('0:0:0:0:0:ffff:c000:0207', 64)).to.equal('192.0.2.7');
    expect(clientBlock('::ffff:192.0.2.8', 64)).to.equal('192.0.2.8');
  });

  it('loopback is an address like any other: ::1 is the /64 of ::, 127.0.0.1 itself', () => {
    expect(clientBlock('::1', 64)).to.equal('::/64');
    expect(clientBlock('::ffff:127.0.0.1', 64)).to.equal('127.0.0.1');
  });

  it('no address is "unknown"; what is not an address is its own key, never an error', () => {
    expect(clientBlock(undefined, 64)).to.equal('unknown');
    expect(clientBlock('', 64)).to.equal('unknown');
    for (const odd of ['not-an-address', '2001:db8::1::2', '192.0.2.300', '[2001:db8::1]', '01.2.3.4']) {
      expect(clientBlock(odd, 64), odd).to.equal(odd);
    }
  });
});
