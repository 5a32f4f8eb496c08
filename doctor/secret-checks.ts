import { type CheckResult, fail, pass, warn } from './check-result';
import type { DoctorContext } from './context';
import { describeError } from './target';

const VARIABLES: Record<string, string> = {
  connector: 'CONNECTOR_SECRET_PREVIOUS',
  link: 'LINK_SECRET_PREVIOUS',
  webhook: 'WEBHOOK_SECRET_PREVIOUS',
};

/** The samples of one metric family in Prometheus text, by their `secret` label. */
function samplesBySecret(text: string, family: string): Map<string, number> {
  const samples = new Map<string, number>();
  const line = new RegExp(`^${family}\\{[^}]*secret="([a-z]+)"[^}]*\\} (\\S+)$`, 'gm');
  for (const match of text.matchAll(line)) samples.set(match[1]!, Number(match[2]));
  return samples;
}

/**
 * `secrets.previous`, only with the API's metrics URL: a previous secret still configured is a WARN (a rotation
 * left half done keeps the old, perhaps leaked, value valid), with how much it is still used so the operator
 * knows whether removing it would refuse anyone. The doctor never sees a secret: it reads the gauge and counter.
 */
export async function secretChecks(ctx: DoctorContext, metricsUrl: string | undefined): Promise<CheckResult[]> {
  if (!metricsUrl) return [];
  const id = 'secrets.previous';
  let text: string;
  try {
    const response = await fetch(metricsUrl, { signal: AbortSignal.timeout(ctx.target.timeoutMs) });
    if (response.status !== 200) return [fail(id, `the metrics URL answered ${response.status}`)];
    text = await response.text();
  } catch (error) {
    return [fail(id, `the metrics URL could not be read: ${describeError(error)}`)];
  }
  const configured = samplesBySecret(text, 'connector_previous_secret_configured');
  if (configured.size === 0) return [warn(id, 'the metrics do not say whether a previous secret is configured (an older connector?)')];
  const uses = samplesBySecret(text, 'connector_previous_secret_uses_total');
  const active = [...configured].filter(([, value]) => value > 0).map(([secret]) => secret);
  if (active.length === 0) return [pass(id, 'no previous secret configured: no rotation overlap is active')];
  const described = active.map((secret) => {
    const used = uses.get(secret);
    return `${VARIABLES[secret] ?? secret}${used === undefined ? '' : ` (${used} uses since this replica started)`}`;
  });
  return [
    warn(
      id,
      `a rotation overlap is still active: ${described.join(', ')}; remove it once connector_previous_secret_uses_total stops rising`,
    ),
  ];
}
