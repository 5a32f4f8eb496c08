import { limitsProblem } from '../../domain/admission/operation-limits';
import { declaredEventsProblem } from '../../domain/jobs/declared-events';
import { priceRange, priceRuleProblem } from '../../domain/jobs/price';
import { MAX_DESCRIPTION_LENGTH, modelDescription } from './model-description';
import type { Operation } from './operation';
import { bodyShapeOf, IDEMPOTENCY_FIELD } from './paid-body';
import { priceProblem } from './price-schema-check';
import { publishedSchema } from './published-schema';

/**
 * A rule every operation of a registry meets. Declaring an operation never throws for these: a registry that
 * breaks one still loads, so its tests run and one named test per operation and rule fails
 * (`test/unit/shared/contract/operations/registry-rules.test.ts`), while the server refuses it at start.
 */
export interface RegistryRule {
  /** The rule in words, as its test names it. */
  readonly name: string;
  /** What `operation` does wrong against the rule, or undefined when it meets it. */
  problem(operation: Operation): string | undefined;
}

/**
 * The description a model reads (with a paid operation's price and cancel sentences) is not empty and fits
 * GPT Actions' limit; a dashboard operation's too, which the internal document carries.
 */
const DESCRIPTION_FITS: RegistryRule = {
  name: `the composed description fits 1 to ${MAX_DESCRIPTION_LENGTH} characters`,
  problem: (operation) => {
    const length = modelDescription(operation).length;
    if (length === 0) return 'the description is empty';
    if (length <= MAX_DESCRIPTION_LENGTH) return undefined;
    return (
      `the description with its price and cancel sentences is ${length} characters (max ${MAX_DESCRIPTION_LENGTH}); ` +
      'shorten it, or state the price in the text'
    );
  },
};

/**
 * A paid operation's price rule was declared in range (no negative price, min not above max) and reads a
 * required field its input schema bounds to exactly the rule's ends.
 */
const PRICE_FITS_INPUT: RegistryRule = {
  name: 'the price rule is in range and fits the input schema',
  problem: (operation) => {
    if (operation.price === undefined || operation.job === undefined) return undefined;
    const declared = priceRuleProblem(operation.price);
    if (declared !== undefined) return `the price rule is out of range: ${declared}`;
    const problem = priceProblem(operation.price, operation.job.input);
    return problem === undefined ? undefined : `the price rule does not fit the input schema: ${problem}`;
  },
};

/**
 * A paid job's own event types are lower-case dotted names outside the connector's own prefixes, each with a
 * description and a zod object of data that leaves the job's id, operation and subject to the connector.
 */
const EVENTS_DECLARED: RegistryRule = {
  name: 'its own event types are well named and described, with object data',
  problem: (operation) => declaredEventsProblem(operation.job?.events),
};

/**
 * A paid operation that takes its input as the whole body has an object input that leaves `idempotency_key`
 * to the key: its fields become the MCP tool's arguments beside that one, and the query parameter has the name.
 */
const TOP_LEVEL_BODY_FITS: RegistryRule = {
  name: 'a top-level body is an object without an idempotency_key field',
  problem: (operation) => {
    if (operation.job === undefined || bodyShapeOf(operation) !== 'top-level') return undefined;
    const { schema: root, components } = publishedSchema(operation.job.input);
    // A named input is published as a reference to its component.
    const name = typeof root.$ref === 'string' ? root.$ref.split('/').pop() : undefined;
    const schema = (name === undefined ? root : components[name]) ?? root;
    const fields = schema.properties;
    if (schema.type !== 'object' || typeof fields !== 'object' || fields === null)
      return 'the input of a top-level body must be an object schema (z.strictObject)';
    return Object.hasOwn(fields, IDEMPOTENCY_FIELD)
      ? `the input has a field ${IDEMPOTENCY_FIELD}, which a top-level body leaves to the key: rename it`
      : undefined;
  },
};

/**
 * An operation's own limits are whole numbers in range (calls a minute 1 to 1,000,000, credits a day 1 to
 * 1,000,000,000), a daily cap is on a paid operation, and it is at least the lowest price (below it, no job
 * could ever be accepted).
 */
const LIMITS_FIT: RegistryRule = {
  name: 'the limits are in range and the price can meet them',
  problem: (operation) => {
    const declared = limitsProblem(operation.limits, operation.price !== undefined);
    if (declared !== undefined) return `the limits are out of range: ${declared}`;
    const cap = operation.limits?.dailyCredits;
    if (cap === undefined || operation.price === undefined || priceRuleProblem(operation.price) !== undefined) return undefined;
    const { min } = priceRange(operation.price);
    return cap >= min
      ? undefined
      : `the daily cap of ${cap} credit${cap === 1 ? '' : 's'} is below the lowest price, ${min}: no job could ever be accepted`;
  },
};

/** Every rule, in the order the problems are told. */
export const REGISTRY_RULES: readonly RegistryRule[] = [
  DESCRIPTION_FITS,
  PRICE_FITS_INPUT,
  EVENTS_DECLARED,
  TOP_LEVEL_BODY_FITS,
  LIMITS_FIT,
];

/** True when `operation` breaks no rule: what tests of other things build their documents from. */
export function meetsRegistryRules(operation: Operation): boolean {
  return REGISTRY_RULES.every((rule) => rule.problem(operation) === undefined);
}

/** Every rule broken by `operations`, one line each: `<operationId>: <what is wrong>`. */
export function registryProblems(operations: readonly Operation[]): string[] {
  return operations.flatMap((operation) =>
    REGISTRY_RULES.flatMap((rule) => {
      const problem = rule.problem(operation);
      return problem === undefined ? [] : [`${operation.operationId}: ${problem}`];
    }),
  );
}

/** Throws an Error naming every rule `operations` break; what the documents and tools are built behind. */
export function assertRegistryRules(operations: readonly Operation[]): void {
  const problems = registryProblems(operations);
  if (problems.length > 0) throw new Error(`the operations registry breaks its rules:\n  ${problems.join('\n  ')}`);
}
