import { expect } from 'chai';
import { isPublicAddress } from '../../../../../shared/platform/net/address-policy';

describe('address policy: isPublicAddress', () => {
  it('isPublicAddress refuses loopback, private, link-local, shared, multicast and mapped addresses, and accepts public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
    for (const address of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPublicAddress(address), address).to.equal(true);
  });

  it('isPublicAddress refuses every IPv6 spelling of a non-public address, and accepts NAT64 of a public one', () => {
    for (const address of [
      '::7f00:1',
      '::127.0.0.1',
      '0:0:0:0:0:0:7f00:1',
      '::a00:1',
      '::8.8.8.8', // IPv4-compatible (deprecated), hex or dotted
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '::FFFF:A9FE:A9FE',
      '::ffff:c0a8:101', // IPv4-mapped in hex
      '::ffff:0:7f00:1',
      '::ffff:0:808:808', // IPv4-translated (SIIT)
      '64:ff9b::7f00:1',
      '64:ff9b::10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::c0a8:101',
      '64:ff9b:1::808:808', // NAT64 of private, local-use NAT64
      '2002:7f00:1::1',
      '2002:c0a8:101::1',
      '2002:808:808::1', // 6to4 (deprecated), whatever it embeds
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      'fe80::1',
      'fe80::1%eth0',
      'febf:ffff::1',
      'fec0::1',
      'fc00::1',
      'fdff:ffff::1', // link-local (scoped too), site-local, unique-local
      '::1',
      '0:0:0:0:0:0:0:1',
      '::',
      '0::0', // loopback, unspecified
      'ff02::1',
      'ff0e::1',
      '2001:db8::1',
      '3fff::1',
      '100::1', // multicast, documentation, discard
    ]) {
      expect(isPublicAddress(address), address).to.equal(false);
    }
    for (const address of ['64:ff9b::808:808', '64:ff9b::8.8.8.8', '2a00:1450:4001:80b::200e', '2001:4860:4860::8888']) {
      expect(isPublicAddress(address), address).to.equal(true);
    }
  });
});
