import { ValidationError } from '../../platform/errors/problems';

/*
 * The price rules a paid operation declares. Each kind is handled in one place, `KINDS` below, whose type
 * requires an entry for every kind of `PriceRule`: a new kind that is not charged, ranged, worded and
 * published fails to compile.
 */

/** A price that does not depend on the input: every accepted job costs `credits`. */
export interface FixedPrice {
  readonly kind: 'fixed';
  readonly credits: number;
}

/**
 * A price proportional to one integer field of the input: `credits` per `unit`, the field bounded to
 * `min..max` units, so the charge is always between `credits·min` and `credits·max`.
 */
export interface PerUnitPrice<F extends string = string> {
  readonly kind: 'per-unit';
  readonly credits: number;
  /** The unit in the person's words, singular: `page`. */
  readonly unit: string;
  /** The top-level field of the job's input that counts the units: `pages`. */
  readonly field: F;
  readonly min: number;
  readonly max: number;
}

/** What a length is counted in: Unicode characters (code points, as JSON Schema counts them) or words. */
export type LengthMeasure = 'characters' | 'words';

/**
 * A price per started block of a string field's length: `credits` for each `block` characters (or words)
 * begun, so 1,000 characters are one block and 1,001 two. The blocks are bounded to `min..max`.
 */
export interface PerLengthPrice<F extends string = string> {
  readonly kind: 'per-length';
  readonly credits: number;
  readonly field: F;
  readonly measure: LengthMeasure;
  /** How many characters or words one block holds. */
  readonly block: number;
  readonly min: number;
  readonly max: number;
}

/** A price looked up by the value of an enum field of the input: `{ draft: 1, standard: 3 }`. */
export interface TablePrice<F extends string = string> {
  readonly kind: 'table';
  readonly field: F;
  readonly credits: Readonly<Record<string, number>>;
}

/**
 * A price the operation computes itself, with the sentence that states it, its lowest and highest charge, and
 * two inputs that cost exactly those (checked when the rule is declared, so the published range is the true one).
 */
export interface CustomPrice<I = unknown> {
  readonly kind: 'custom';
  /** The sentence the descriptions state, e.g. `Costs 1 credit per 10 images, at least 2.` */
  readonly text: string;
  readonly min: number;
  readonly max: number;
  /** The charge for an input (already valid against the operation's schema); a whole number in `min..max`. */
  charge(input: I): number;
  /** Inputs at the ends of the range: `charge(ends.min)` is `min`, `charge(ends.max)` is `max`. */
  readonly ends: { readonly min: I; readonly max: I };
}

/** The top-level fields of `I` whose values have type `V`; any name when the input's type is not known. */
export type FieldsOf<I, V> = unknown extends I ? string : { [K in keyof I]-?: NonNullable<I[K]> extends V ? K : never }[keyof I] & string;

/**
 * How a paid job is priced: declared once, on its operation, applied to each accepted input. With the input's
 * type, the field a rule reads must be a field of the right type (`pages` an integer, `text` a string).
 */
export type PriceRule<I = unknown> =
  | FixedPrice
  | PerUnitPrice<FieldsOf<I, number>>
  | PerLengthPrice<FieldsOf<I, string>>
  | TablePrice<FieldsOf<I, string>>
  | CustomPrice<I>;

/** The kinds of price rule. */
export type PriceKind = PriceRule['kind'];

/** What every kind provides; {@link KINDS} holds one per kind. */
interface KindHandler<R> {
  /** The credits `input` costs, or undefined when it falls outside the rule. */
  charge(rule: R, input: Record<string, unknown>): number | undefined;
  /** The lowest and highest charge. */
  range(rule: R): { min: number; max: number };
  /** The rule as a phrase for a cost line: `2 credits per page (input.pages, 1 to 5), so 2 to 10 credits`. */
  phrase(rule: R): string;
  /** The rule's own fields as `x-cost` publishes them (besides `kind`, `text`, `min` and `max`). */
  fields(rule: R): Record<string, unknown>;
  /** Where an input that falls outside the rule is wrong, for the 400. */
  problem(rule: R): { path: string; message: string };
}

type Handlers = { readonly [K in PriceKind]: KindHandler<Extract<PriceRule, { kind: K }>> };

const KINDS: Handlers = {
  fixed: {
    charge: (rule) => rule.credits,
    range: (rule) => ({ min: rule.credits, max: rule.credits }),
    phrase: (rule) => credits(rule.credits),
    fields: (rule) => ({ credits: rule.credits }),
    problem: () => ({ path: '/body/input', message: 'does not fit the price rule' }),
  },
  'per-unit': {
    charge: (rule, input) => {
      const units = input[rule.field];
      return isCountIn(units, rule.min, rule.max) ? rule.credits * units : undefined;
    },
    range: (rule) => ({ min: rule.credits * rule.min, max: rule.credits * rule.max }),
    phrase: (rule) => {
      const { min, max } = KINDS['per-unit'].range(rule);
      return `${credits(rule.credits)} per ${rule.unit} (input.${rule.field}, ${rule.min} to ${rule.max}), so ${min} to ${credits(max)}`;
    },
    fields: (rule) => ({ credits: rule.credits, unit: rule.unit, field: `input.${rule.field}`, min_units: rule.min, max_units: rule.max }),
    problem: (rule) => ({ path: `/body/input/${rule.field}`, message: `must be an integer from ${rule.min} to ${rule.max}` }),
  },
  'per-length': {
    charge: (rule, input) => {
      const text = input[rule.field];
      if (typeof text !== 'string') return undefined;
      const blocks = Math.ceil(lengthOf(text, rule.measure) / rule.block);
      return isCountIn(blocks, rule.min, rule.max) ? rule.credits * blocks : undefined;
    },
    range: (rule) => ({ min: rule.credits * rule.min, max: rule.credits * rule.max }),
    phrase: (rule) => {
      const { min, max } = KINDS['per-length'].range(rule);
      return `${credits(rule.credits)} per started ${count(rule.block)} ${singular(rule.measure, rule.block)} of input.${rule.field}, so ${min} to ${credits(max)}`;
    },
    fields: (rule) => ({
      credits: rule.credits,
      field: `input.${rule.field}`,
      measure: rule.measure,
      block: rule.block,
      min_blocks: rule.min,
      max_blocks: rule.max,
    }),
    problem: (rule) => ({
      path: `/body/input/${rule.field}`,
      message: `must be from ${count((rule.min - 1) * rule.block + 1)} to ${count(rule.max * rule.block)} ${rule.measure}`,
    }),
  },
  table: {
    charge: (rule, input) => {
      const value = input[rule.field];
      return typeof value === 'string' && Object.hasOwn(rule.credits, value) ? rule.credits[value] : undefined;
    },
    range: (rule) => {
      const amounts = Object.values(rule.credits);
      return { min: Math.min(...amounts), max: Math.max(...amounts) };
    },
    phrase: (rule) => {
      const { min, max } = KINDS.table.range(rule);
      const entries = Object.entries(rule.credits).map(([value, amount]) => `${value} ${amount}`);
      return `${min} to ${credits(max)} by input.${rule.field} (${entries.join(', ')})`;
    },
    fields: (rule) => ({ field: `input.${rule.field}`, credits: { ...rule.credits } }),
    problem: (rule) => ({ path: `/body/input/${rule.field}`, message: `must be one of ${Object.keys(rule.credits).join(', ')}` }),
  },
  custom: {
    charge: (rule, input) => {
      const amount = rule.charge(input);
      return isCountIn(amount, rule.min, rule.max) ? amount : undefined;
    },
    range: (rule) => ({ min: rule.min, max: rule.max }),
    phrase: (rule) => (rule.min === rule.max ? credits(rule.max) : `${rule.min} to ${credits(rule.max)}`),
    fields: () => ({}),
    problem: () => ({ path: '/body/input', message: 'does not fit the price rule' }),
  },
};

/** The handler of a rule's kind. The cast is the one place the union meets its per-kind entry. */
function handlerOf(rule: PriceRule): KindHandler<PriceRule> {
  return KINDS[rule.kind] as KindHandler<PriceRule>;
}

/** Every job costs `credits` (a non-negative integer). */
export function fixedPrice(credits: number): FixedPrice {
  return checked({ kind: 'fixed', credits }, () => assertCount('credits', credits));
}

/** What is wrong with each rule declared with out-of-range arguments, kept rather than thrown. */
const RULE_PROBLEMS = new WeakMap<object, string>();

/**
 * `rule`, with what `check` throws kept as its problem ({@link priceRuleProblem}) instead of thrown: a rule
 * out of range is declared where a module loads, and a throw there would abort every test run that imports
 * the registry. The registry's rule test names it with its operation, and the API refuses it at start.
 */
function checked<R extends object>(rule: R, check: () => void): R {
  try {
    check();
  } catch (error) {
    RULE_PROBLEMS.set(rule, error instanceof Error ? error.message : String(error));
  }
  return rule;
}

/** What was wrong with the arguments `rule` was declared with (a negative price, min above max), if anything. */
export function priceRuleProblem(rule: PriceRule): string | undefined {
  return RULE_PROBLEMS.get(rule);
}

/** Options of {@link perUnit}. */
export interface PerUnitOptions<F extends string> {
  credits: number;
  unit: string;
  field: F;
  min: number;
  max: number;
}

/** `credits` per `unit`, counted by the input's integer `field`, which must lie within `min..max`. */
export function perUnit<const F extends string>({ credits, unit, field, min, max }: PerUnitOptions<F>): PerUnitPrice<F> {
  return checked({ kind: 'per-unit', credits, unit, field, min, max }, () => {
    assertCount('credits', credits);
    assertBounds('perUnit', min, max);
    // The unit and field are printed into the published documents: keep them to plain words.
    assertWord('perUnit', unit);
    assertField('perUnit', field);
  });
}

/** Options of {@link perLength}. */
export interface PerLengthOptions<F extends string> {
  credits: number;
  field: F;
  /** Default `characters`. */
  measure?: LengthMeasure;
  block: number;
  /** Blocks at least (default 1) and at most. */
  min?: number;
  max: number;
}

/** `credits` per started `block` characters (or words) of the input's string `field`, `min..max` blocks. */
export function perLength<const F extends string>({
  credits,
  field,
  measure = 'characters',
  block,
  min = 1,
  max,
}: PerLengthOptions<F>): PerLengthPrice<F> {
  return checked({ kind: 'per-length', credits, field, measure, block, min, max }, () => {
    assertCount('credits', credits);
    assertBounds('perLength', min, max);
    assertField('perLength', field);
    if (!Number.isSafeInteger(block) || block < 1) throw new Error(`perLength: block must be a positive integer, got ${block}`);
    if (measure !== 'characters' && measure !== 'words') throw new Error(`perLength: measure must be characters or words`);
  });
}

/** A price per value of the input's enum `field`: `priceTable('quality', { draft: 1, standard: 3 })`. */
export function priceTable<const F extends string>(field: F, table: Readonly<Record<string, number>>): TablePrice<F> {
  return checked({ kind: 'table', field, credits: Object.freeze({ ...table }) }, () => {
    assertField('priceTable', field);
    const entries = Object.entries(table);
    if (entries.length === 0) throw new Error('priceTable: the table is empty');
    for (const [value, amount] of entries) {
      assertCount(`credits of ${value}`, amount);
      // The values are printed into the published documents, as the enum publishes them.
      if (!/^[A-Za-z0-9_-]{1,40}$/.test(value)) throw new Error(`priceTable: value ${JSON.stringify(value)} must be a plain word`);
    }
  });
}

/** Options of {@link customPrice}: see {@link CustomPrice}. */
export type CustomPriceOptions<I> = Omit<CustomPrice<I>, 'kind'>;

/**
 * A rule of the operation's own, published with its own sentence and range. The range is proven when it is
 * declared: the inputs at its ends must cost exactly `min` and `max`.
 */
export function customPrice<I>(options: CustomPriceOptions<I>): CustomPrice<I> {
  const { text, min, max, charge, ends } = options;
  return checked<CustomPrice<I>>({ kind: 'custom', text, min, max, charge, ends }, () => {
    assertBounds('customPrice', min, max);
    if (!/^\S.{0,199}[.!]$/s.test(text) || /[\r\n]/.test(text)) {
      throw new Error('customPrice: text must be one sentence of at most 200 characters, ending with a period');
    }
    for (const [end, expected] of [
      ['min', min],
      ['max', max],
    ] as const) {
      const actual = charge(ends[end]);
      if (actual !== expected) throw new Error(`customPrice: the input at the ${end} end costs ${actual}, not ${expected}`);
    }
  });
}

/**
 * The credits an input costs under `rule`. The input has passed its schema already; an input that still
 * falls outside the rule (a schema that does not bound the field) is refused with a 400 rather than priced
 * by a guess, and nothing is charged.
 */
export function priceOf(rule: PriceRule, input: unknown): number {
  const handler = handlerOf(rule);
  const charged = handler.charge(rule, (input ?? {}) as Record<string, unknown>);
  if (charged === undefined) throw new ValidationError('The input does not fit the price rule.', [handler.problem(rule)]);
  return charged;
}

/** The lowest and highest charge the rule can make. */
export function priceRange(rule: PriceRule): { min: number; max: number } {
  return handlerOf(rule).range(rule);
}

/**
 * The rule in the person's words, as the `/llms.txt` cost line states it: `1 credit`, or
 * `2 credits per page (input.pages, 1 to 5), so 2 to 10 credits`.
 */
export function priceStatement(rule: PriceRule): string {
  return handlerOf(rule).phrase(rule);
}

/**
 * The sentence that states the price, which the descriptions a model reads carry (`x-cost.text`): `Costs 1 credit.`,
 * or a custom rule's own sentence.
 */
export function priceText(rule: PriceRule): string {
  return rule.kind === 'custom' ? rule.text : `Costs ${priceStatement(rule)}.`;
}

/** The rule as `x-cost` publishes it: its kind, its own fields, the sentence and the range. */
export function publishedPrice(rule: PriceRule): Record<string, unknown> {
  const { min, max } = priceRange(rule);
  return { kind: rule.kind, ...handlerOf(rule).fields(rule), text: priceText(rule), min, max };
}

/** The length of `text` in `measure`: code points, or runs of non-space characters. */
export function lengthOf(text: string, measure: LengthMeasure): number {
  if (measure === 'words') return text.match(/\S+/gu)?.length ?? 0;
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

function isCountIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

function credits(amount: number): string {
  return `${count(amount)} credit${amount === 1 ? '' : 's'}`;
}

/** A whole number as the documents write it: `1,000`. */
function count(amount: number): string {
  return amount.toLocaleString('en-US');
}

function singular(measure: LengthMeasure, block: number): string {
  return block === 1 ? measure.replace(/s$/, '') : measure;
}

function assertCount(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`price: ${name} must be a non-negative integer, got ${value}`);
}

function assertBounds(rule: string, min: number, max: number): void {
  assertCount('min', min);
  assertCount('max', max);
  if (min > max) throw new Error(`${rule}: min (${min}) is above max (${max})`);
}

function assertWord(rule: string, unit: string): void {
  if (!/^[a-z][a-z ]{0,30}$/.test(unit)) throw new Error(`${rule}: unit must be a lower-case word, got ${JSON.stringify(unit)}`);
}

function assertField(rule: string, field: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(field)) throw new Error(`${rule}: field must be a plain property name`);
}
