import { expect } from 'chai';
import { Command } from 'ioredis';
import { EncodedCommand, encodeCommand } from '../../../../../shared/adapters/redis/encoded-command';

/** What ioredis itself writes for a command, as bytes. */
function ioredisBytes(name: string, args: Array<string | number | Buffer>): Buffer {
  const written = new Command(name, args).toWritable(undefined as never);
  return Buffer.isBuffer(written) ? written : Buffer.from(written, 'utf8');
}

function encodedBytes(name: string, args: Array<string | number | Buffer>): Buffer {
  return new EncodedCommand(name, args).toWritable();
}

describe('EncodedCommand', () => {
  const cases: Array<[string, string, Array<string | number | Buffer>]> = [
    ['no argument', 'ping', []],
    [
      'a script call with keys and numbers',
      'evalsha',
      ['2bde3b9dd', 3, 'connector:{s:a}:k1', 'connector:{s:a}:k2', 'k3', 0, -1, 86_400, 1.5],
    ],
    ['an empty string', 'set', ['key', '']],
    ['multi-byte text', 'set', ['clé', 'naïve ✓ 𝄞']],
    ['Buffers beside strings', 'set', [Buffer.from([0, 255, 13, 10]), Buffer.alloc(0), 'x']],
    [
      'lengths of one, two, three and four digits',
      'mset',
      ['a', 'b'.repeat(9), 'c'.repeat(10), 'd'.repeat(99), 'e'.repeat(100), 'f'.repeat(1234)],
    ],
  ];
  for (const [what, name, args] of cases) {
    it(`writes ${what} byte for byte as ioredis does`, () => {
      expect(encodedBytes(name, args).equals(ioredisBytes(name, args))).to.equal(true);
    });
  }

  it('writes eleven arguments and more with a two-digit count', () => {
    const args = Array.from({ length: 35 }, (_, i) => `arg-${i}`);
    expect(encodeCommand('evalsha', args).subarray(0, 5).toString('latin1')).to.equal('*36\r\n');
    expect(encodeCommand('evalsha', args).equals(ioredisBytes('evalsha', args))).to.equal(true);
  });

  it('writes a command after a longer one without the longer one’s lengths', () => {
    encodeCommand('mset', ['x'.repeat(500), 'y'.repeat(500), 'z'.repeat(500)]);
    expect(encodeCommand('get', ['k']).toString('latin1')).to.equal('*2\r\n$3\r\nget\r\n$1\r\nk\r\n');
  });

  it('writes a command with one multi-byte argument among ASCII ones with that argument’s byte length', () => {
    const args = ['connector:{s:a}:k', 'é', 'plain'];
    expect(encodeCommand('evalsha', args).equals(ioredisBytes('evalsha', args))).to.equal(true);
    expect(encodeCommand('evalsha', args).toString('utf8')).to.include('$2\r\né\r\n');
  });
});
