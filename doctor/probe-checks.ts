import { type CheckResult, fail, pass, warn } from './check-result';
import type { DoctorContext } from './context';
import { describeError, isLocalHost } from './target';

/** `/healthz` answers, and the connector is reached over TLS (what every platform insists on). */
export async function probeChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  try {
    const response = await ctx.target.request('/healthz');
    results.push(
      response.status === 200
        ? pass('probe.healthz', 'GET /healthz answered 200')
        : fail('probe.healthz', `GET /healthz answered ${response.status}`),
    );
  } catch (error) {
    results.push(fail('probe.healthz', `GET /healthz failed: ${describeError(error)}`));
  }
  results.push(tls(ctx));
  return results;
}

function tls({ target }: DoctorContext): CheckResult {
  const reached = new URL(target.baseUrl);
  const published = new URL(target.publicUrl);
  if (reached.protocol === 'https:') return pass('probe.tls', 'reached over https with a certificate this machine trusts');
  if (target.internal) {
    // Inside a cluster the Service is plain http and TLS ends at the ingress; what matters is the public URL.
    if (published.protocol === 'https:')
      return pass('probe.tls', `reached at the in-cluster address over http; the public URL ${target.publicUrl} is https`);
    if (isLocalHost(published))
      return warn('probe.tls', `the public URL ${target.publicUrl} is plain http on a local host: fine for a demo, platforms need https`);
    return fail('probe.tls', `the public URL ${target.publicUrl} is not https`);
  }
  if (isLocalHost(reached)) return warn('probe.tls', 'plain http on a local host: fine for a local run, platforms need https');
  return fail('probe.tls', `${target.baseUrl} is plain http; platforms call only https`);
}

/** Run last, over every response collected: `/v1` answers are never cached, and nothing names the framework. */
export function headerChecks(ctx: DoctorContext): CheckResult[] {
  const responses = ctx.target.responses.filter((r) => r.url.startsWith(ctx.target.baseUrl));
  const v1 = responses.filter((r) => new URL(r.url).pathname.includes('/v1/'));
  const cached = v1.filter((r) => !/\bno-store\b/i.test(r.headers.get('cache-control') ?? ''));
  const results: CheckResult[] = [];
  if (v1.length === 0) results.push(warn('headers.no-store', 'no /v1 response was seen to check'));
  else if (cached.length > 0) {
    const where = [...new Set(cached.map((r) => `${r.method} ${new URL(r.url).pathname} (${r.status})`))].slice(0, 5).join(', ');
    results.push(fail('headers.no-store', `Cache-Control lacks no-store on ${where}`));
  } else results.push(pass('headers.no-store', `all ${v1.length} /v1 responses carry Cache-Control: no-store`));

  const poweredBy = new Set<string>();
  const servers = new Set<string>();
  for (const response of responses) {
    const value = response.headers.get('x-powered-by');
    if (value) poweredBy.add(value);
    const server = response.headers.get('server');
    if (server && /\d|express|node/i.test(server)) servers.add(server);
  }
  // X-Powered-By comes from the app itself; a versioned Server header usually from a proxy in front of it.
  if (poweredBy.size > 0) results.push(fail('headers.banner', `responses announce X-Powered-By: ${[...poweredBy].join(', ')}`));
  else if (servers.size > 0)
    results.push(warn('headers.banner', `responses announce Server: ${[...servers].join(', ')} (a proxy in front can hide it)`));
  else results.push(pass('headers.banner', `no framework or version banner on ${responses.length} responses`));
  return results;
}
