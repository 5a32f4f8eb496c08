import { expect } from 'chai';
import { Command } from 'ioredis';
import { EncodedCommand } from '../../../../../shared/adapters/redis/encoded-command';

/** What a command writes to the socket, as bytes. */
function bytesOf(command: Command): Buffer {
  const written = command.toWritable({});
  return Buffer.isBuffer(written) ? written : Buffer.from(written, 'utf8');
}

/** What ioredis itself writes for a command. */
function ioredisBytes(name: string, args: Array<string | number | Buffer>): Buffer {
  return bytesOf(new Command(name, args));
}

function encodedBytes(name: string, args: Array<string | number | Buffer>): Buffer {
  return bytesOf(new EncodedCommand(name, args));
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
    ['a character beyond Latin-1 whose low byte is ASCII, last in its argument', 'set', ['key', 'abcĀ']],
    ['Buffers beside strings', 'set', [Buffer.from([0, 255, 13, 10]), Buffer.alloc(0), 'x']],
    [
      'lengths of one to five digits',
      'mset',
      ['a', 'b'.repeat(9), 'c'.repeat(10), 'd'.repeat(99), 'e'.repeat(100), 'f'.repeat(1234), 'g'.repeat(12_345)],
    ],
  ];
  for (const [what, name, args] of cases) {
    it(`writes ${what} byte for byte as ioredis does`, () => {
      expect(encodedBytes(name, args).equals(ioredisBytes(name, args))).to.equal(true);
    });
  }

  it('writes eleven arguments and more with a two-digit count, as one Buffer', () => {
    const args = Array.from({ length: 35 }, (_, i) => `arg-${i}`);
    expect(Buffer.isBuffer(new EncodedCommand('evalsha', args).toWritable({}))).to.equal(true);
    expect(encodedBytes('evalsha', args).subarray(0, 5).toString('latin1')).to.equal('*36\r\n');
    expect(encodedBytes('evalsha', args).equals(ioredisBytes('evalsha', args))).to.equal(true);
  });

  it('writes a command after a longer one without the longer one’s lengths', () => {
    encodedBytes('mset', ['x'.repeat(500), 'y'.repeat(500), 'z'.repeat(500)]);
    expect(encodedBytes('get', ['k']).toString('latin1')).to.equal('*2\r\n$3\r\nget\r\n$1\r\nk\r\n');
  });

  it('writes a command with one multi-byte argument among ASCII ones with that argument’s byte length', () => {
    const args = ['connector:{s:a}:k', 'é', 'plain'];
    expect(encodedBytes('evalsha', args).equals(ioredisBytes('evalsha', args))).to.equal(true);
    expect(encodedBytes('evalsha', args).toString('utf8')).to.include('$2\r\né\r\n');
  });
});
