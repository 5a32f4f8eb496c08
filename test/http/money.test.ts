import { BACKENDS } from '../support/backends';
import { startConnector } from '../support/harness';
import { moneyFlows } from '../support/money-flows';

// Holds, captures, releases and cancel charges over HTTP, in both billing modes, on memory and one Redis node.
for (const kind of BACKENDS) moneyFlows(kind, (env, options) => startConnector(kind, env, options));
