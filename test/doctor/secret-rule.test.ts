import { expect } from 'chai';
import { failures, runDoctorCli } from '../support/doctor-cli';
import { type ConnectorUnderTest, startConnector } from '../support/harness';
import { phaseEnv, ROTATION } from '../support/rotation';
import { freePort } from '../testkit/free-port';

/** A memory connector listening where its PUBLIC_URL says, with `env` on top. */
async function connectorAt(env: Record<string, string>): Promise<{ connector: ConnectorUnderTest; url: string }> {
  const url = `http://127.0.0.1:${await freePort()}`;
  const connector = await startConnector('memory', { ...env, PORT: new URL(url).port, PUBLIC_URL: url });
  return { connector, url };
}

describe('connector-doctor secrets.previous: a rotation overlap left on', function () {
  this.timeout(60_000);
  const started: ConnectorUnderTest[] = [];
  after(async () => {
    for (const connector of started) await connector.close();
  });

  it('warns, naming each previous variable still configured and never its value, and still exits 0', async () => {
    const { connector, url } = await connectorAt(phaseEnv('during'));
    started.push(connector);
    const run = await runDoctorCli([url, '--metrics-url', connector.metricsUrl]);
    expect(failures(run), run.stdout).to.deep.equal([]);
    expect(run.code).to.equal(0);
    const rule = run.rule('secrets.previous');
    expect(rule.status).to.equal('WARN');
    expect(rule.message).to.match(/CONNECTOR_SECRET_PREVIOUS \(0 uses.*LINK_SECRET_PREVIOUS \(0 uses/);
    expect(rule.message).to.not.contain('WEBHOOK_SECRET_PREVIOUS');
    for (const value of [ROTATION.connector.old, ROTATION.link.old]) expect(run.stdout + run.stderr).to.not.contain(value);
  });

  it('passes when no previous secret is configured, and is left out without a metrics URL', async () => {
    const { connector, url } = await connectorAt({});
    started.push(connector);
    const run = await runDoctorCli([url], { CONNECTOR_DOCTOR_METRICS_URL: connector.metricsUrl });
    expect(run.rule('secrets.previous').status).to.equal('PASS');
    const without = await runDoctorCli([url]);
    expect(without.results.map((r) => r.id)).to.not.include('secrets.previous');
  });

  it('fails when the metrics URL cannot be read', async () => {
    const { connector, url } = await connectorAt({});
    started.push(connector);
    const run = await runDoctorCli([url, '--metrics-url', `http://127.0.0.1:${await freePort()}/metrics`]);
    expect(run.rule('secrets.previous').status).to.equal('FAIL');
    expect(run.code).to.equal(1);
  });
});
