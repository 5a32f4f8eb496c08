import { limitsText, type OperationLimits } from '../../domain/admission/operation-limits';
import { type PriceRule, priceText } from '../../domain/jobs/price';
import { type CancelCharge, DEFAULT_CANCEL_CHARGE } from '../../domain/jobs/processor';

/** Longest operation description GPT Actions accepts; the composed description must fit it. */
export const MAX_DESCRIPTION_LENGTH = 300;

/**
 * What a description is composed from: the operation's own text, its price rule when it has one, and for a
 * paid job what a cancel after its start keeps.
 */
export interface DescribedOperation {
  readonly description: string;
  readonly price?: PriceRule;
  readonly job?: { readonly cancelCharge?: CancelCharge };
  readonly limits?: OperationLimits;
}

/** What a cancel once the job started costs, in the person's words (`x-cost.cancel_charge` in words). */
const CANCEL_TEXT: Readonly<Record<CancelCharge, string>> = {
  none: 'A cancel is free.',
  progress: 'A late cancel pays the share done.',
  full: 'A late cancel pays it all.',
};

/** The sentence a paid job's description carries about a cancel after its start. */
export function cancelText(charge: CancelCharge = DEFAULT_CANCEL_CHARGE): string {
  return CANCEL_TEXT[charge];
}

/**
 * True when `text` already states the rule's price sentence (without its final period, in any case), as
 * `Starts a paid job that costs 1 credit, …` states `Costs 1 credit.`
 */
export function statesPrice(text: string, rule: PriceRule): boolean {
  const sentence = priceText(rule).replace(/[.!]$/, '').toLowerCase();
  return text.toLowerCase().includes(sentence);
}

/**
 * The description a model reads: the operation's text, followed by its price sentence unless the text
 * states it already, so the price is said exactly once, then for a paid job what a late cancel costs (unless
 * the text says it), then its own limits (`At most 20 calls a minute; at most 30 credits a day.`, unless the
 * text says them). `/openapi.json`, `/llms.txt`, the MCP tool and the doctor all see this one string.
 */
export function modelDescription(operation: DescribedOperation): string {
  return withSentence(pricedDescription(operation), limitsText(operation.limits));
}

/** The text with its price and cancel sentences. */
function pricedDescription({ description, price, job }: DescribedOperation): string {
  if (!price) return description;
  const priced = statesPrice(description, price) ? description : `${description} ${priceText(price)}`;
  if (!job) return priced;
  return withSentence(priced, cancelText(job.cancelCharge));
}

/** `text` followed by `sentence`, unless it is empty or the text states it already (without its period, in any case). */
function withSentence(text: string, sentence: string): string {
  if (sentence === '' || text.toLowerCase().includes(sentence.replace(/\.$/, '').toLowerCase())) return text;
  return `${text} ${sentence}`;
}
