import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { createSecretKey, hkdfSync } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { mcpGetMeScenario } from './mcp-scenario';

// `npm run bench`: the built API in its own process (embedded backend, logs off) under autocannon from this
// process, next to a bare Express route as the baseline, plus jwt.verify with a string secret vs a KeyObject.
const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const SECRET = 'bench-connector-secret-0123456789abcdef';
const LINK_SECRET = 'bench-link-secret';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startProcess(entry: string, env: Record<string, string>, probe: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(__dirname, '..', entry)], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  for (let i = 0; i < 200; i++) {
    if (await fetch(probe).then((r) => r.ok, () => false)) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`${entry} did not start`);
}

async function load(title: string, options: autocannon.Options): Promise<{ title: string; rps: number; p50: number; p99: number; non2xx: number }> {
  const result = await autocannon({ duration: DURATION, connections: CONNECTIONS, ...options });
  return { title, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx };
}

function jwtMicro(): { stringMs: number; keyObjectMs: number } {
  const raw = Buffer.from(hkdfSync('sha256', SECRET, 'salt', 'info', 32));
  const stringSecret = raw.toString('hex');
  const keyObject = createSecretKey(raw);
  const tokenA = jwt.sign({ sub: 'a' }, stringSecret, { algorithm: 'HS256' });
  const tokenB = jwt.sign({ sub: 'a' }, keyObject, { algorithm: 'HS256' });
  const time = (fn: () => void, n: number) => {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    return Number(process.hrtime.bigint() - start) / 1e6 / n;
  };
  return {
    stringMs: time(() => jwt.verify(tokenA, stringSecret, { algorithms: ['HS256'] }), 2000),
    keyObjectMs: time(() => jwt.verify(tokenB, keyObject, { algorithms: ['HS256'] }), 20000),
  };
}

async function main(): Promise<void> {
  const barePort = await freePort();
  const bare = await startProcess('bench/bare-server.js', { PORT: String(barePort) }, `http://127.0.0.1:${barePort}/bare`);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const api = await startProcess('api/main.js', {
    CONNECTOR_SECRET: SECRET, PUBLIC_URL: 'http://localhost:8787', DASHBOARD_URL: 'https://dashboard.example.com', LINK_SECRET,
    PORT: String(port), METRICS_PORT: String(await freePort()), LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000', PLACEHOLDER_JOB_MS: '10',
  }, `${base}/healthz`);
  try {
    const link = (await (await fetch(`${base}/v1/link`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-link-secret': LINK_SECRET }, body: '{"subject":"bench"}' })).json()) as { token: string };
    const auth = { authorization: `Bearer ${link.token}`, 'content-type': 'application/json' };
    const job = (await (await fetch(`${base}/v1/jobs`, { method: 'POST', headers: { ...auth, 'idempotency-key': 'bench-1' }, body: '{"input":{"prompt":"bench"}}' })).json()) as { id: string };
    const results = [
      await load('bare Express 5 route (baseline)', { url: `http://127.0.0.1:${barePort}/bare` }),
      await load('GET /healthz (full middleware chain, no auth)', { url: `${base}/healthz` }),
      await load('GET /v1/me (token verify + revocation check + validation)', { url: `${base}/v1/me`, headers: auth }),
      await load('POST /mcp tools/call get_me (same operation over MCP)', mcpGetMeScenario(base, link.token)),
      await load('GET /v1/jobs/{id} (poll)', { url: `${base}/v1/jobs/${job.id}`, headers: auth }),
      await load('POST /v1/jobs same key (idempotent replay)', { url: `${base}/v1/jobs`, method: 'POST', headers: { ...auth, 'idempotency-key': 'bench-1' }, body: '{"input":{"prompt":"bench"}}' }),
    ];
    const baseline = results[0].rps;
    process.stdout.write(`\n${DURATION}s per run, ${CONNECTIONS} connections, ${require('node:os').cpus().length} cores\n\n`);
    process.stdout.write('| scenario | req/s | of baseline | p50 ms | p99 ms | non-2xx |\n|---|---|---|---|---|---|\n');
    for (const r of results) {
      process.stdout.write(`| ${r.title} | ${r.rps} | ${Math.round((r.rps / baseline) * 100)}% | ${r.p50} | ${r.p99} | ${r.non2xx} |\n`);
    }
    const rest = results.find((r) => r.title.startsWith('GET /v1/me'))!;
    const mcp = results.find((r) => r.title.startsWith('POST /mcp'))!;
    process.stdout.write(`\nMCP tools/call get_me costs ${(rest.rps / mcp.rps).toFixed(2)}x GET /v1/me (target: at most 1.5x)\n`);
    const micro = jwtMicro();
    process.stdout.write(`\njwt.verify HS256: string secret ${(micro.stringMs * 1000).toFixed(1)} µs/call, KeyObject ${(micro.keyObjectMs * 1000).toFixed(1)} µs/call\n`);
  } finally {
    api.kill('SIGTERM');
    bare.kill('SIGTERM');
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
