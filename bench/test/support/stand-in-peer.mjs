// A stand-in for another connector in the smoke run of `bench:peer`: the contract's routes that run loads, answered
// from memory (any bearer token is taken, every job is stored under its idempotency key), on the port in PORT.
import { randomUUID } from 'node:crypto';
import http from 'node:http';

const jobs = new Map();
const byKey = new Map();

function answer(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function createJob(req, res) {
  const key = req.headers['idempotency-key'];
  const known = key && byKey.get(key);
  if (known) return answer(res, 200, jobs.get(known));
  const job = { id: randomUUID(), status: 'queued' };
  jobs.set(job.id, job);
  if (key) byKey.set(key, job.id);
  return answer(res, 202, job);
}

function route(req, res) {
  if (req.method === 'POST' && req.url === '/v1/link') return answer(res, 200, { token: 'stand-in' });
  if (!req.headers.authorization) return answer(res, 401, { title: 'Unauthorized' });
  if (req.method === 'GET' && req.url === '/v1/me') return answer(res, 200, { subject: 'bench' });
  if (req.method === 'POST' && req.url === '/v1/jobs') return createJob(req, res);
  const job = req.method === 'GET' && req.url.startsWith('/v1/jobs/') && jobs.get(req.url.slice('/v1/jobs/'.length));
  return job ? answer(res, 200, job) : answer(res, 404, { title: 'Not Found' });
}

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => route(req, res));
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
