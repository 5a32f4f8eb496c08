// `npm run dev` (scripts/dev.ts) as a template user has it after adding the trial's operations to the registry
// itself (test/support/inject-extra-operations.ts): the dev server on that registry.
import './inject-extra-operations';
import '../../scripts/dev';
