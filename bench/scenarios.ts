import { link, post } from './connector-processes';
import { freshKeys, type HttpScenario } from './http-load';
import { type McpProbe, mcpScenario } from './mcp-scenario';

/** The connector's HTTP scenarios (b) to (f) against one API, and what the MCP probe found. */
export interface ConnectorScenarios {
  scenarios: HttpScenario[];
  mcp: McpProbe;
  /** Compared builds only (`compare.ts`, not the full run): (j) `GET /v1/jobs/{id}` of the job (e) replays. */
  jobRead: HttpScenario;
}

/**
 * Links the subject `bench` on the API at `base`, stores the job that (e) replays, and returns (b) to (f):
 * `GET /v1/me`, `POST /v1/things`, a fresh `POST /v1/jobs`, a replayed one, and MCP `tools/call get_me` when
 * the API serves `/mcp`. The full run and `compare.ts` send exactly these requests.
 */
export async function connectorScenarios(base: string, pid: number | undefined): Promise<ConnectorScenarios> {
  const auth = await link(base);
  const input = { input: { prompt: 'bench' } };
  const job = JSON.stringify(input);
  const stored = await post(`${base}/v1/jobs`, { ...auth, 'idempotency-key': 'bench-replay' }, input);
  const onRedis = (id: string, title: string, url: string, options: HttpScenario['options']): HttpScenario => ({
    id,
    title,
    backend: 'redis',
    url,
    pid,
    options,
  });
  const fresh = { method: 'POST' as const, path: '/v1/jobs', headers: auth, body: job, setupRequest: freshKeys(`fresh-${Date.now()}`) };
  const scenarios = [
    onRedis('b', 'GET /v1/me', `${base}/v1/me`, { headers: auth }),
    onRedis('c', 'POST /v1/things', `${base}/v1/things`, {
      method: 'POST',
      headers: auth,
      body: '{"name":"bench thing","notes":"a note"}',
    }),
    onRedis('d', 'POST /v1/jobs, fresh key', base, { requests: [fresh] }),
    onRedis('e', 'POST /v1/jobs, replay', `${base}/v1/jobs`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'bench-replay' },
      body: job,
    }),
  ];
  const mcp = await mcpScenario(base, auth);
  if (mcp.scenario) scenarios.push({ ...mcp.scenario, pid });
  const jobRead = onRedis('j', 'GET /v1/jobs/{id}', `${base}/v1/jobs/${String(stored.id)}`, { headers: auth });
  return { scenarios, mcp, jobRead };
}
