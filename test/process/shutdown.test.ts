import { expect } from 'chai';
import { BASE_ENV } from '../support/harness';
import { type Spawned, spawnNode } from '../support/spawn-process';
import { freePort, freePortBeside } from '../testkit/free-port';
import { waitFor } from '../testkit/wait-for';

describe('graceful shutdown of the built API on the embedded backend', () => {
  let proc: Spawned;
  let base: string;
  before(async function () {
    this.timeout(45_000);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    proc = spawnNode('dist/api/main.js', {
      CONNECTOR_SECRET: BASE_ENV.CONNECTOR_SECRET,
      PUBLIC_URL: BASE_ENV.PUBLIC_URL,
      DASHBOARD_URL: BASE_ENV.DASHBOARD_URL,
      LINK_SECRET: BASE_ENV.LINK_SECRET,
      PORT: String(port),
      METRICS_PORT: String(await freePortBeside(port)),
      PLACEHOLDER_JOB_MS: '1500',
      SHUTDOWN_GRACE_MS: '10000',
      // The job's success line, which the test looks for, is a debug line.
      LOG_LEVEL: 'debug',
    });
    // A start on a machine busy with the parallel suite has taken over 10 s; mocha's 30 s bounds the hook.
    await waitFor(() => fetch(`${base}/healthz`).then((r) => r.ok), { timeoutMs: 25_000, what: 'the API to listen' });
  });
  after(() => {
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
  });

  it('prints the in-memory warning once at start', () => {
    expect(proc.stdout().match(/REDIS_URL is not set/g)).to.have.length(1);
  });

  it('on SIGTERM it finishes the running job, stops accepting, and exits 0', async () => {
    const linked = (await (
      await fetch(`${base}/v1/link`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-link-secret': BASE_ENV.LINK_SECRET },
        body: JSON.stringify({ subject: 'shutdown' }),
      })
    ).json()) as { token: string };
    const job = (await (
      await fetch(`${base}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${linked.token}`, 'idempotency-key': 'sigterm-1' },
        body: JSON.stringify({ input: { prompt: 'drain me' } }),
      })
    ).json()) as { id: string; status: string };
    expect(job.status).to.be.oneOf(['queued', 'running']);
    const auth = { authorization: `Bearer ${linked.token}` };
    await waitFor(
      async () => ((await (await fetch(`${base}/v1/jobs/${job.id}`, { headers: auth })).json()) as { status: string }).status === 'running',
      {
        what: 'the job to start',
      },
    );

    proc.child.kill('SIGTERM');
    await waitFor(
      () =>
        fetch(`${base}/healthz`).then(
          () => false,
          () => true,
        ),
      { what: 'the listener to close' },
    );
    expect(await proc.exited).to.equal(0);
    const lines = proc
      .stdout()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const finished = lines.findIndex((line) => line.msg === 'job succeeded' && line.job_id === job.id);
    const stopping = lines.findIndex((line) => line.msg === 'shutting down');
    expect(stopping).to.be.greaterThan(-1);
    expect(finished, 'the job finished after SIGTERM, before exit').to.be.greaterThan(stopping);
  });
});
