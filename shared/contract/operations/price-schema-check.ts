import type * as z from 'zod';
import type { PriceRule } from '../../domain/jobs/price';
import type { JsonSchema } from './operation';
import { publishedSchema } from './published-schema';

/**
 * Checks a paid operation's price rule against its input schema when the operation is declared, so that what
 * `x-cost` publishes is exactly what can be charged: the field the rule reads is a required field of the
 * right type, and the schema's bounds give the rule's own ends (`pages` 1 to 5 for a rule of 1 to 5 pages;
 * at most 20,000 characters for 20 blocks of 1,000). A custom rule's inputs at the ends must be valid inputs.
 * Throws an Error naming the operation and what to change.
 */
export function checkPriceAgainstInput(operationId: string, rule: PriceRule, input: z.ZodType): void {
  const problem = priceProblem(rule, input);
  if (problem) throw new Error(`${operationId}: the price rule does not fit the input schema: ${problem}`);
}

/** What is wrong between a price rule and the input schema it prices, or undefined when it fits. */
export function priceProblem(rule: PriceRule, input: z.ZodType): string | undefined {
  switch (rule.kind) {
    case 'fixed':
      return undefined;
    case 'custom': {
      const invalid = (['min', 'max'] as const).filter((end) => !input.safeParse(rule.ends[end]).success);
      return invalid.length > 0 ? `the input at the ${invalid.join(' and ')} end is not a valid input` : undefined;
    }
    case 'per-unit':
      return fieldProblem(input, rule.field, (field) => unitsProblem(rule, field));
    case 'per-length':
      return fieldProblem(input, rule.field, (field) => lengthProblem(rule, field));
    case 'table':
      return fieldProblem(input, rule.field, (field) => {
        const values = Array.isArray(field.enum) ? [...field.enum].sort() : [];
        const priced = Object.keys(rule.credits).sort();
        return JSON.stringify(values) === JSON.stringify(priced)
          ? undefined
          : `input.${rule.field} must be an enum of exactly ${priced.join(', ')}`;
      });
    case 'combined':
      return termsProblem(rule, input);
    default: {
      const unknown: never = rule;
      return `unknown price kind ${JSON.stringify(unknown)}`;
    }
  }
}

/**
 * The bounds a per-unit rule needs: an integer field bounded to exactly its ends, or a list whose item count
 * is (no `minItems` is 0 items).
 */
function unitsProblem(rule: Extract<PriceRule, { kind: 'per-unit' }>, field: JsonSchema): string | undefined {
  if (field.type === 'array') {
    const fewest = typeof field.minItems === 'number' ? field.minItems : 0;
    return fewest === rule.min && field.maxItems === rule.max
      ? undefined
      : `input.${rule.field} must be a list with minItems ${rule.min} and maxItems ${rule.max}`;
  }
  return field.type === 'integer' && field.minimum === rule.min && field.maximum === rule.max
    ? undefined
    : `input.${rule.field} must be an integer with minimum ${rule.min} and maximum ${rule.max} (or a list of that many items)`;
}

/** Each term of a combined rule against the schema, the first that does not fit named by its place. */
function termsProblem(rule: Extract<PriceRule, { kind: 'combined' }>, input: z.ZodType): string | undefined {
  for (const [index, term] of rule.terms.entries()) {
    const problem = priceProblem(term, input);
    if (problem !== undefined) return `term ${index + 1} (${term.kind}): ${problem}`;
  }
  return undefined;
}

/** The bounds a per-length rule needs: the blocks of the shortest and the longest allowed text are its ends. */
function lengthProblem(rule: Extract<PriceRule, { kind: 'per-length' }>, field: JsonSchema): string | undefined {
  const { field: name, measure, block, min, max } = rule;
  const maxLength = field.maxLength;
  if (field.type !== 'string' || typeof maxLength !== 'number') return `input.${name} must be a string with a maxLength`;
  // The most words a text of n characters can hold is one per two characters ("a b c").
  const most = measure === 'characters' ? maxLength : Math.ceil(maxLength / 2);
  if (Math.ceil(most / block) !== max)
    return `input.${name} allows ${most} ${measure}, ${Math.ceil(most / block)} blocks; the rule says ${max}`;
  // A text of spaces has no word, so only characters give the lower end; fewer words are refused (400).
  if (measure === 'words') return undefined;
  const fewest = Math.ceil((typeof field.minLength === 'number' ? field.minLength : 0) / block);
  return fewest === min ? undefined : `input.${name} allows ${fewest} blocks at least; the rule says ${min} (set minLength)`;
}

/** Runs `check` on the schema of a required top-level field of the input, or says what is missing. */
function fieldProblem(input: z.ZodType, name: string, check: (field: JsonSchema) => string | undefined): string | undefined {
  const { schema, components } = publishedSchema(input);
  const root = resolve(schema, components);
  const field = (root.properties as Record<string, JsonSchema> | undefined)?.[name];
  const required = Array.isArray(root.required) && root.required.includes(name);
  if (!field || !required) return `input.${name} must be a required field of the input`;
  return check(resolve(field, components));
}

function resolve(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): JsonSchema {
  const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref) : null;
  return ref ? (components[ref[1]] ?? schema) : schema;
}
