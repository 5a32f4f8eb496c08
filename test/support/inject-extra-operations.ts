import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { INJECTED_OPERATIONS } from './injected-operations';

/*
 * A mocha --require file: adds operations to the registry itself before any suite loads, as a template user
 * does by editing registry.ts. The registry-deriving suites run with it and must pass, which shows that
 * adding an operation breaks none of them: test/unit/registry-additions.test.ts runs them.
 */

// The registry is a readonly list to the product; this file stands for the user's edit of it.
(OPERATIONS as Operation[]).push(...INJECTED_OPERATIONS);
