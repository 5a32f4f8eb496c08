import type { Operation } from '../../../shared/contract/operations/operation';
import { type ConnectorUnderTest, startConnector } from '../../support/harness';
import { CardHost } from './card-host';

/** What a card suite runs against: a connector on the memory backend and an MCP Apps host in headless Chromium. */
export interface CardStand {
  readonly connector: ConnectorUnderTest;
  readonly host: CardHost;
}

/**
 * Registers the suite's `before` and `after` hooks for a {@link CardStand}: the connector (with `env` over the
 * test defaults, serving `operations`) and the host start side by side, as Chromium's launch is the slow half;
 * if either fails, the other is closed before the hook fails. Read the stand inside a test or a later hook.
 */
export function useCardStand(env: Record<string, string>, operations: readonly Operation[]): CardStand {
  let started: CardStand | undefined;
  before(async function () {
    this.timeout(60_000);
    const [connector, host] = await Promise.allSettled([startConnector('memory', env, { operations }), CardHost.start()]);
    if (connector.status === 'fulfilled' && host.status === 'fulfilled') {
      started = { connector: connector.value, host: host.value };
      return;
    }
    if (connector.status === 'fulfilled') await connector.value.close();
    if (host.status === 'fulfilled') await host.value.close();
    throw connector.status === 'rejected' ? connector.reason : (host as PromiseRejectedResult).reason;
  });
  after(async () => {
    await started?.host.close();
    await started?.connector.close();
  });
  return {
    get connector() {
      if (!started) throw new Error('the card stand is not started: read it inside a test or a later hook');
      return started.connector;
    },
    get host() {
      if (!started) throw new Error('the card stand is not started: read it inside a test or a later hook');
      return started.host;
    },
  };
}
