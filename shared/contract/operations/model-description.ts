import { type PriceRule, priceText } from '../../domain/jobs/price';

/** Longest operation description GPT Actions accepts; the composed description must fit it. */
export const MAX_DESCRIPTION_LENGTH = 300;

/** What a description is composed from: the operation's own text and its price rule, when it has one. */
export interface DescribedOperation {
  readonly description: string;
  readonly price?: PriceRule;
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
 * states it already, so the price is said exactly once. `/openapi.json`, `/llms.txt`, the MCP tool and the
 * doctor all see this one string.
 */
export function modelDescription({ description, price }: DescribedOperation): string {
  if (!price || statesPrice(description, price)) return description;
  return `${description} ${priceText(price)}`;
}
