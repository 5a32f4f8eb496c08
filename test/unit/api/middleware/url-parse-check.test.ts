import url from 'node:url';
import { expect } from 'chai';
import { settleUrlParseCheck } from '../../../../api/middleware/url-parse-check';

/** Calls `run` from under `depth` frames of this file, so that Node's caller check sees only our own code. */
function fromOurCode<T>(depth: number, run: () => T): T {
  return depth === 0 ? run() : fromOurCode(depth - 1, run);
}

describe('settleUrlParseCheck (Node’s url.parse deprecation check, settled at start)', () => {
  it('marks the warning as given without printing it, leaves noDeprecation as it was, and later calls warn nothing', async () => {
    const warnings: string[] = [];
    const listen = (warning: Error & { code?: string }) => warnings.push(warning.code ?? warning.name);
    process.on('warning', listen);
    const before = process.noDeprecation;
    try {
      settleUrlParseCheck();
      expect(process.noDeprecation).to.equal(before);
      // A call from our own code: on a Node that warns (24 and later), it would warn here had the check not been settled.
      expect(fromOurCode(8, () => url.parse('/v1/jobs?x=1')).query).to.equal('x=1');
      // Node emits warnings on a later tick.
      await new Promise<void>((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listen);
    }
    expect(warnings).to.deep.equal([]);
  });
});
