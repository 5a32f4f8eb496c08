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
 * A price proportional to one field of the input that counts units: an integer (`pages`) or a list, counted by
 * its items (`sources`). `credits` per `unit`, the count bounded to `min..max` units, so the charge is always
 * between `credits·min` and `credits·max`.
 */
export interface PerUnitPrice<F extends string = string> {
  readonly kind: 'per-unit';
  readonly credits: number;
  /** The unit in the person's words, singular: `page`. */
  readonly unit: string;
  /** The top-level field of the job's input that counts the units: `pages` (an integer) or `sources` (a list). */
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

/** A rule that can be one term of a combined price: any kind but a custom or a combined one. */
export type PriceTerm<I = unknown> =
  | FixedPrice
  | PerUnitPrice<FieldsOf<I, Countable>>
  | PerLengthPrice<FieldsOf<I, string>>
  | TablePrice<FieldsOf<I, string>>;

/**
 * A price that adds its terms: `combinedPrice(priceTable('depth', { quick: 2, deep: 6 }), perUnit({ credits: 1,
 * unit: 'source URL', field: 'sources', min: 0, max: 16 }))` charges the depth's credits plus 1 per source, so
 * 2 to 22. Its range is the sum of its terms' ranges: each term reads its own field, so each end is reached.
 */
export interface CombinedPrice<T extends PriceTerm = PriceTerm> {
  readonly kind: 'combined';
  readonly terms: readonly T[];
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

/** What a per-unit rule counts: an integer, or a list by its items. */
export type Countable = number | readonly unknown[];

/** The top-level fields of `I` whose values have type `V`; any name when the input's type is not known. */
export type FieldsOf<I, V> = unknown extends I ? string : { [K in keyof I]-?: NonNullable<I[K]> extends V ? K : never }[keyof I] & string;

/**
 * How a paid job is priced: declared once, on its operation, applied to each accepted input. With the input's
 * type, the field a rule reads must be a field of the right type (`pages` an integer, `text` a string).
 */
export type PriceRule<I = unknown> = PriceTerm<I> | CombinedPrice<PriceTerm<I>> | CustomPrice<I>;

/** The kinds of price rule. */
export type PriceKind = PriceRule['kind'];

/** Where an input that falls outside a rule is wrong: a field of the input (or the input itself), and how. */
export interface PriceProblem {
  /** The top-level field of the input; absent for the input as a whole. */
  field?: string;
  message: string;
}

/** What every kind provides; {@link KINDS} holds one per kind. */
interface KindHandler<R> {
  /** The credits `input` costs, or undefined when it falls outside the rule. */
  charge(rule: R, input: Record<string, unknown>): number | undefined;
  /** The lowest and highest charge. */
  range(rule: R): { min: number; max: number };
  /** The rule as one term of a sum, without its range: `2 credits per page (input.pages, 1 to 5)`. */
  term(rule: R): string;
  /** The rule as a phrase for a cost line: `2 credits per page (input.pages, 1 to 5), so 2 to 10 credits`. */
  phrase(rule: R): string;
  /** The rule's own fields as `x-cost` publishes them (besides `kind`, `text`, `min` and `max`). */
  fields(rule: R): Record<string, unknown>;
  /** Where `input`, which falls outside the rule, is wrong, for the 400. */
  problem(rule: R, input: Record<string, unknown>): PriceProblem;
}

type Handlers = { readonly [K in PriceKind]: KindHandler<Extract<PriceRule, { kind: K }>> };

const WHOLE_INPUT: PriceProblem = { message: 'does not fit the price rule' };

const KINDS: Handlers = {
  fixed: {
    charge: (rule) => rule.credits,
    range: (rule) => ({ min: rule.credits, max: rule.credits }),
    term: (rule) => credits(rule.credits),
    phrase: (rule) => credits(rule.credits),
    fields: (rule) => ({ credits: rule.credits }),
    problem: () => WHOLE_INPUT,
  },
  'per-unit': {
    charge: (rule, input) => {
      const units = unitsOf(input[rule.field]);
      return isCountIn(units, rule.min, rule.max) ? rule.credits * units : undefined;
    },
    range: (rule) => ({ min: rule.credits * rule.min, max: rule.credits * rule.max }),
    term: (rule) => `${credits(rule.credits)} per ${rule.unit} (input.${rule.field}, ${rule.min} to ${rule.max})`,
    phrase: (rule) => withRange(KINDS['per-unit'], rule),
    fields: (rule) => ({
      per_unit: rule.credits,
      unit: rule.unit,
      field: `input.${rule.field}`,
      min_units: rule.min,
      max_units: rule.max,
    }),
    problem: (rule, input) => ({
      field: rule.field,
      message: Array.isArray(input[rule.field])
        ? `must hold from ${rule.min} to ${rule.max} items`
        : `must be an integer from ${rule.min} to ${rule.max}`,
    }),
  },
  'per-length': {
    charge: (rule, input) => {
      const text = input[rule.field];
      if (typeof text !== 'string') return undefined;
      const blocks = Math.ceil(lengthOf(text, rule.measure) / rule.block);
      return isCountIn(blocks, rule.min, rule.max) ? rule.credits * blocks : undefined;
    },
    range: (rule) => ({ min: rule.credits * rule.min, max: rule.credits * rule.max }),
    term: (rule) =>
      `${credits(rule.credits)} per started ${count(rule.block)} ${singular(rule.measure, rule.block)} of input.${rule.field}`,
    phrase: (rule) => withRange(KINDS['per-length'], rule),
    fields: (rule) => ({
      per_unit: rule.credits,
      unit: `${rule.block} ${singular(rule.measure, rule.block)}`,
      field: `input.${rule.field}`,
      measure: rule.measure,
      block: rule.block,
      min_units: rule.min,
      max_units: rule.max,
    }),
    problem: (rule) => ({
      field: rule.field,
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
    term: (rule) => `the credits of input.${rule.field} (${tableEntries(rule)})`,
    phrase: (rule) => {
      const { min, max } = KINDS.table.range(rule);
      return `${min} to ${credits(max)} by input.${rule.field} (${tableEntries(rule)})`;
    },
    fields: (rule) => ({ field: `input.${rule.field}`, table: { ...rule.credits } }),
    problem: (rule) => ({ field: rule.field, message: `must be one of ${Object.keys(rule.credits).join(', ')}` }),
  },
  combined: {
    charge: (rule, input) => {
      let sum = 0;
      for (const term of rule.terms) {
        const charged = handlerOf(term).charge(term, input);
        if (charged === undefined) return undefined;
        sum += charged;
      }
      return sum;
    },
    range: (rule) =>
      rule.terms
        .map((term) => priceRange(term))
        .reduce((total, range) => ({ min: total.min + range.min, max: total.max + range.max }), { min: 0, max: 0 }),
    term: (rule) => rule.terms.map((term) => handlerOf(term).term(term)).join(' plus '),
    phrase: (rule) => withRange(KINDS.combined, rule),
    // Each term as x-cost publishes a rule of its kind, with its own range: a client can price any input.
    fields: (rule) => ({ terms: rule.terms.map((term) => ({ kind: term.kind, ...handlerOf(term).fields(term), ...priceRange(term) })) }),
    problem: (rule, input) => {
      const failing = rule.terms.find((term) => handlerOf(term).charge(term, input) === undefined);
      return failing ? handlerOf(failing).problem(failing, input) : WHOLE_INPUT;
    },
  },
  custom: {
    charge: (rule, input) => {
      const amount = rule.charge(input);
      return isCountIn(amount, rule.min, rule.max) ? amount : undefined;
    },
    range: (rule) => ({ min: rule.min, max: rule.max }),
    term: (rule) => KINDS.custom.phrase(rule),
    phrase: (rule) => (rule.min === rule.max ? credits(rule.max) : `${rule.min} to ${credits(rule.max)}`),
    fields: () => ({}),
    problem: () => WHOLE_INPUT,
  },
};

/** A term followed by the range it spans: `…, so 2 to 10 credits`. */
function withRange<R extends PriceRule>(handler: KindHandler<R>, rule: R): string {
  const { min, max } = handler.range(rule);
  return `${handler.term(rule)}, so ${min} to ${credits(max)}`;
}

/** A table's entries as the phrases print them: `quick 2, deep 6`. */
function tableEntries(rule: TablePrice): string {
  return Object.entries(rule.credits)
    .map(([value, amount]) => `${value} ${amount}`)
    .join(', ');
}

/** The units a per-unit field counts: the integer itself, or the items of a list. */
function unitsOf(value: unknown): unknown {
  return Array.isArray(value) ? value.length : value;
}
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

/** The most terms a combined price adds: enough for any sensible rule, few enough to state in one sentence. */
export const MAX_PRICE_TERMS = 4;

/**
 * The sum of `terms` (fixed, per-unit, per-length or table rules, each reading its own field):
 * `combinedPrice(priceTable('depth', { quick: 2, deep: 6 }), perUnit({ credits: 1, unit: 'source URL', field:
 * 'sources', min: 0, max: 16 }))` costs 2 to 22 credits. A term declared out of range makes the sum out of range.
 */
export function combinedPrice<const T extends readonly PriceTerm[]>(...terms: T): CombinedPrice<T[number]> {
  return checked({ kind: 'combined', terms: Object.freeze([...terms]) }, () => {
    if (terms.length < 2 || terms.length > MAX_PRICE_TERMS)
      throw new Error(`combinedPrice: give 2 to ${MAX_PRICE_TERMS} terms, got ${terms.length}`);
    const fields = new Set<string>();
    for (const [index, term] of terms.entries()) assertTerm(term, index, fields);
    assertCount('max', priceRange({ kind: 'combined', terms }).max);
  });
}

/** Throws what is wrong with the `index`th term of a combined price; `fields` gathers the fields read so far. */
function assertTerm(term: PriceTerm, index: number, fields: Set<string>): void {
  if (!TERM_KINDS.has(term?.kind)) throw new Error(`combinedPrice: term ${index + 1} is a ${term?.kind} rule, which cannot be a term`);
  const problem = priceRuleProblem(term);
  if (problem !== undefined) throw new Error(`combinedPrice: term ${index + 1}: ${problem}`);
  if (!('field' in term)) return;
  // Two terms on one field would make the range's ends unreachable together (and the sentence confusing).
  if (fields.has(term.field)) throw new Error(`combinedPrice: two terms read input.${term.field}`);
  fields.add(term.field);
}

/** The kinds a combined price adds up. */
const TERM_KINDS: ReadonlySet<string> = new Set<PriceTerm['kind']>(['fixed', 'per-unit', 'per-length', 'table']);

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
 * by a guess, and nothing is charged. `at` is where the input sits in the request, for the 400's path: the
 * body's `input` (the default), or the body itself for an operation that takes its input as the whole body.
 */
export function priceOf(rule: PriceRule, input: unknown, at = '/body/input'): number {
  const handler = handlerOf(rule);
  const fields = (input ?? {}) as Record<string, unknown>;
  const charged = handler.charge(rule, fields);
  if (charged === undefined) {
    const { field, message } = handler.problem(rule, fields);
    throw new ValidationError('The input does not fit the price rule.', [{ path: field === undefined ? at : `${at}/${field}`, message }]);
  }
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
  if (!/^[A-Za-z][A-Za-z ]{0,30}$/.test(unit)) throw new Error(`${rule}: unit must be a word or two, got ${JSON.stringify(unit)}`);
}

function assertField(rule: string, field: string): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(field)) throw new Error(`${rule}: field must be a plain property name`);
}
