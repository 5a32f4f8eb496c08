import type { StartApiOptions } from '../../api/start-api';
import type { BackendKind } from './backends';
import { startConnector, type ConnectorUnderTest } from './harness';
import { waitFor } from './wait-for';

/**
 * `startConnector`, then waits until `/readyz` answers 200: on Redis the API listens before its client has
 * connected, and until then requests that need Redis answer 503 by design.
 */
export async function startReadyConnector(
  kind: BackendKind,
  overrides: Record<string, string> = {},
  options: StartApiOptions = {},
): Promise<ConnectorUnderTest> {
  const c = await startConnector(kind, overrides, options);
  try {
    await waitFor(async () => (await fetch(`${c.baseUrl}/readyz`)).status === 200, { what: `${kind} connector to be ready` });
  } catch (error) {
    await c.close();
    throw error;
  }
  return c;
}
