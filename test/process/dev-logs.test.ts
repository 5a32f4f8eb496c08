import { expect } from 'chai';
import { startDev, stopDev } from '../support/dev-process';
import { BASE_ENV } from '../support/harness';
import { waitFor } from '../testkit/wait-for';

describe('npm run dev log lines (scripts/dev.ts)', function () {
  this.timeout(60_000);

  it('writes JSON lines when stdout is not a terminal', async () => {
    const dev = await startDev({});
    try {
      await waitFor(() => /api listening/.test(dev.output()), { timeoutMs: 30_000, what: 'the api listening line' });
      const line = dev
        .output()
        .split('\n')
        .find((l) => l.includes('api listening'))!;
      expect(JSON.parse(line)).to.include({ msg: 'api listening', backend: 'memory' });
    } finally {
      await stopDev(dev);
    }
  });

  it('writes one human-readable line per entry with LOG_FORMAT=pretty (the terminal path), secrets still absent', async () => {
    const dev = await startDev({ LOG_FORMAT: 'pretty' });
    try {
      await waitFor(() => /api listening/.test(dev.output()), { timeoutMs: 30_000, what: 'the api listening line' });
      await fetch(`${dev.base}/v1/me`, { headers: { authorization: 'Bearer not-a-real-token' } });
      await waitFor(() => /"\/v1\/me"/.test(dev.output()), { what: 'the access line' });
      const lines = dev.output().split('\n');
      const listening = lines.find((l) => l.includes('api listening'))!;
      expect(listening).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(connector-dev\): api listening \{.*"backend":"memory"/);
      expect(lines.find((l) => l.includes('"/v1/me"'))).to.match(/^\[[\d:.]+\] INFO \(connector-dev\): request \{.*"status":401/);
      expect(
        lines.filter((l) => l.startsWith('{')),
        'no JSON line',
      ).to.deep.equal([]);
      expect(dev.output()).not.to.include('not-a-real-token').and.not.to.include(BASE_ENV.LINK_SECRET);
    } finally {
      await stopDev(dev);
    }
  });
});
