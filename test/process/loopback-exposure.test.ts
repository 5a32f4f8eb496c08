import { expect } from 'chai';
import { checkedClient } from '../support/checked-client';
import { type DevProcess, startDev, stopDev } from '../support/dev-process';
import { BASE_ENV } from '../support/harness';
import { nonLoopbackAddresses } from '../support/local-addresses';
import { authorize, authorizeParams, type OAuthTarget, oauthTarget, pendingRequestId, registerClient } from '../support/oauth-helpers';
import { type Spawned, spawnNode } from '../support/spawn-process';
import { freePorts } from '../testkit/free-port';
import { accepts } from '../testkit/node-process';
import { waitFor } from '../testkit/wait-for';

// BASE_ENV's PUBLIC_URL is http://localhost:8787 and it sets no CONSENT_URL and no HOST: the developer's
// laptop, where the consent page used to be served to anyone on the same network.
const LOOPBACK_PUBLIC_URL = BASE_ENV.PUBLIC_URL;

/** The built API (what `npm start` and the image run) with `BASE_ENV` plus `extra`, once it answers. */
async function startBuiltApi(
  extra: Record<string, string> = {},
): Promise<{ proc: Spawned; port: number; metricsPort: number; target: OAuthTarget }> {
  const [port, metricsPort] = await freePorts(2);
  const { PORT: _port, METRICS_PORT: _metrics, ...env } = BASE_ENV;
  const proc = spawnNode('dist/api/main.js', { ...env, PORT: String(port), METRICS_PORT: String(metricsPort), ...extra });
  const baseUrl = `http://127.0.0.1:${port}`;
  // As test/support/processes.ts waits: a loaded machine (many processes start at once) can take long.
  await waitFor(() => fetch(`${baseUrl}/healthz`).then((r) => r.ok), { what: 'the built API to listen', timeoutMs: 30_000 });
  const target = oauthTarget(
    { baseUrl, call: (await checkedClient(baseUrl)).call },
    { publicUrl: LOOPBACK_PUBLIC_URL, linkSecret: BASE_ENV.LINK_SECRET },
  );
  return { proc, port, metricsPort, target };
}

async function stopBuiltApi(proc: Spawned | undefined): Promise<void> {
  if (!proc || proc.child.exitCode !== null) return;
  proc.child.kill('SIGTERM');
  await proc.exited;
}

/** Where `/oauth/authorize` sends the browser for a freshly registered client, and the request it parked. */
async function consentLocation(target: OAuthTarget): Promise<{ location: string; request: string }> {
  const clientId = await registerClient(target.baseUrl);
  const res = await authorize(target.baseUrl, authorizeParams(target, clientId).params);
  const location = res.headers.get('location')!;
  return { location, request: await pendingRequestId(res) };
}

describe('what a connector with a loopback PUBLIC_URL exposes', function () {
  this.timeout(90_000);
  const outside = nonLoopbackAddresses();

  it('this machine has a non-loopback address to try the listeners through', () => {
    expect(outside, 'an address of a non-loopback interface (os.networkInterfaces)').to.not.be.empty;
  });

  describe('the built API (npm start, the image), no HOST and no CONSENT_URL', () => {
    let api: Awaited<ReturnType<typeof startBuiltApi>>;
    before(async () => {
      api = await startBuiltApi();
    });
    after(async () => stopBuiltApi(api?.proc));

    it('serves no dev consent page (404 to GET and POST, even for a live request) and sends authorize to DASHBOARD_URL/connect', async () => {
      const { location, request } = await consentLocation(api.target);
      expect(location).to.match(new RegExp(`^${BASE_ENV.DASHBOARD_URL}/connect\\?request=authreq_`));
      expect((await fetch(`${api.target.baseUrl}/oauth/dev-consent?request=${request}`)).status).to.equal(404);
      const post = await fetch(`${api.target.baseUrl}/oauth/dev-consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: LOOPBACK_PUBLIC_URL },
        body: new URLSearchParams({ request, decision: 'approve', subject: 'victim@example.com' }),
      });
      expect(post.status).to.equal(404);
    });

    it('listens on 127.0.0.1 only: the API and metrics ports refuse every non-loopback address of this machine', async () => {
      expect(await accepts(api.port, '127.0.0.1')).to.equal(true);
      expect(await accepts(api.metricsPort, '127.0.0.1')).to.equal(true);
      for (const address of outside) {
        expect(await accepts(api.port, address), `API port through ${address}`).to.equal(false);
        expect(await accepts(api.metricsPort, address), `metrics port through ${address}`).to.equal(false);
      }
      const listening = api.proc
        .stdout()
        .split('\n')
        .find((line) => line.includes('"api listening"'))!;
      expect(JSON.parse(listening)).to.include({ host: '127.0.0.1' });
    });
  });

  describe('the built API with HOST=:: (what the chart sets)', () => {
    let api: Awaited<ReturnType<typeof startBuiltApi>>;
    before(async () => {
      api = await startBuiltApi({ HOST: '::' });
    });
    after(async () => stopBuiltApi(api?.proc));

    it('accepts connections through every address of this machine, and still serves no dev consent page', async () => {
      for (const address of outside) {
        expect(await accepts(api.port, address), `API port through ${address}`).to.equal(true);
        expect(await accepts(api.metricsPort, address), `metrics port through ${address}`).to.equal(true);
      }
      const { request } = await consentLocation(api.target);
      expect((await fetch(`${api.target.baseUrl}/oauth/dev-consent?request=${request}`)).status).to.equal(404);
    });
  });

  describe('npm run dev (scripts/dev.ts), no HOST and no CONSENT_URL', () => {
    let dev: DevProcess;
    before(async () => {
      dev = await startDev({});
      await waitFor(() => /api listening/.test(dev.output()), { timeoutMs: 45_000, what: 'npm run dev to listen' });
    });
    after(async () => dev && stopDev(dev));

    it('sends authorize to its dev consent page, which it serves, on 127.0.0.1 only', async () => {
      const target = oauthTarget(
        { baseUrl: dev.base, call: (await checkedClient(dev.base)).call },
        { publicUrl: LOOPBACK_PUBLIC_URL, linkSecret: BASE_ENV.LINK_SECRET },
      );
      const location = new URL((await consentLocation(target)).location);
      expect(`${location.origin}${location.pathname}`).to.equal(`${LOOPBACK_PUBLIC_URL}/oauth/dev-consent`);
      const page = await fetch(`${dev.base}/oauth/dev-consent${location.search}`);
      expect(page.status).to.equal(200);
      expect(await page.text()).to.include('Development consent page');
      for (const address of outside) expect(await accepts(dev.port, address), `API port through ${address}`).to.equal(false);
    });
  });
});
