import { ValidationError } from '../../platform/errors/validation-error';

/** A price that does not depend on the input: every accepted job costs `credits`. */
export interface FixedPrice {
  readonly kind: 'fixed';
  readonly credits: number;
}

/**
 * A price proportional to one integer field of the input: `credits` per `unit`, the field bounded to
 * `min..max` units, so the charge is always between `credits·min` and `credits·max`.
 */
export interface PerUnitPrice {
  readonly kind: 'per-unit';
  readonly credits: number;
  /** The unit in the person's words, singular: `page`. */
  readonly unit: string;
  /** The top-level field of the job's input that counts the units: `pages`. */
  readonly field: string;
  readonly min: number;
  readonly max: number;
}

/** How a paid job is priced: declared once, on its `PaidJob`, and applied to each accepted input. */
export type PriceRule = FixedPrice | PerUnitPrice;

/** Options of {@link perUnit}. */
export interface PerUnitOptions {
  credits: number;
  unit: string;
  field: string;
  min: number;
  max: number;
}

/** Every job costs `credits` (a non-negative integer). */
export function fixedPrice(credits: number): FixedPrice {
  assertCount('credits', credits);
  return { kind: 'fixed', credits };
}

/** `credits` per `unit`, counted by the input's integer `field`, which must lie within `min..max`. */
export function perUnit({ credits, unit, field, min, max }: PerUnitOptions): PerUnitPrice {
  assertCount('credits', credits);
  assertCount('min', min);
  assertCount('max', max);
  if (min > max) throw new Error(`perUnit: min (${min}) is above max (${max})`);
  // The unit and field are printed into the published documents: keep them to plain words.
  if (!/^[a-z][a-z ]{0,30}$/.test(unit)) throw new Error(`perUnit: unit must be a lower-case word, got ${JSON.stringify(unit)}`);
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(field)) throw new Error(`perUnit: field must be a plain property name`);
  return { kind: 'per-unit', credits, unit, field, min, max };
}

/**
 * The credits an input costs under `rule`. The input has passed its schema already; an input that still
 * falls outside the rule (a schema that does not bound the field) is refused with a 400 rather than priced
 * by a guess.
 */
export function priceOf(rule: PriceRule, input: Record<string, unknown>): number {
  if (rule.kind === 'fixed') return rule.credits;
  const units = input[rule.field];
  if (typeof units !== 'number' || !Number.isInteger(units) || units < rule.min || units > rule.max) {
    throw new ValidationError('The input does not fit the price rule.', [
      { path: `/body/input/${rule.field}`, message: `must be an integer from ${rule.min} to ${rule.max}` },
    ]);
  }
  return rule.credits * units;
}

/** The lowest and highest charge the rule can make. */
export function priceRange(rule: PriceRule): { min: number; max: number } {
  if (rule.kind === 'fixed') return { min: rule.credits, max: rule.credits };
  return { min: rule.credits * rule.min, max: rule.credits * rule.max };
}

/**
 * The rule in the person's words, as `/llms.txt` and the MCP tool state it: `1 credit`, or
 * `2 credits per page (input.pages, 1 to 5), so 2 to 10 credits`.
 */
export function priceStatement(rule: PriceRule): string {
  if (rule.kind === 'fixed') return credits(rule.credits);
  const { min, max } = priceRange(rule);
  return `${credits(rule.credits)} per ${rule.unit} (input.${rule.field}, ${rule.min} to ${rule.max}), so ${min} to ${credits(max)}`;
}

function credits(amount: number): string {
  return `${amount} credit${amount === 1 ? '' : 's'}`;
}

function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`price: ${name} must be a non-negative integer, got ${value}`);
}
