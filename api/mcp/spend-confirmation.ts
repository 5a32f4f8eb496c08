import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
} from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../shared/contract/mcp/tool-definitions';
import { jobInputOf } from '../../shared/contract/operations/paid-body';
import type { JobService } from '../../shared/domain/jobs/job-service';
import { priceOf } from '../../shared/domain/jobs/price';
import type { QuoteNonceStore } from '../../shared/domain/spend/quote-nonce-store';
import type { QuoteCheck, QuoteStep, SpendQuotes, SpendTerms } from '../../shared/domain/spend/spend-quote';
import type { BillingSettings } from '../../shared/platform/config/billing-settings';
import { InsufficientCreditsError } from '../../shared/platform/errors/problems';
import { inputSummary } from './input-summary';

/** The key of the form elicitation that asks the person to confirm a spend. */
export const CONFIRM_KEY = 'confirm_spend';
/** The key of the URL elicitation that sends the person to buy credits. */
export const TOP_UP_KEY = 'top_up';

/** What the client of one request can be asked: a form, a URL (2026-07-28 only; a 2025-11-25 client: neither). */
export interface Askable {
  form: boolean;
  url: boolean;
}

/** A 2026-07-28 request's answers to an earlier round: its `inputResponses` and its checked `requestState`. */
export interface Round {
  responses?: Record<string, unknown>;
  /** The quote the request echoed, as the verify hook checked it; undefined when it echoed none. */
  quote?: QuoteCheck;
}

/** One tool call as the confirmation sees it. */
export interface GatedCall {
  tool: ToolDefinition;
  input: Record<string, unknown>;
  subject: string;
  askable: Askable;
  round: Round;
}

/** Run the handler, or answer without running it (a refusal, or a question for the person). */
export type Gate = { run: true } | { answer: CallToolResult | InputRequiredResult };

const RUN: Gate = { run: true };
const NOTHING_CHARGED = 'Nothing was charged.';
const ASK_AGAIN = 'Call the tool again to be asked again.';

/** Why a confirmation round did not lead to the job, in the person's words. */
const REFUSALS = {
  decline: `The person declined this spend, so the call was not run. ${NOTHING_CHARGED}`,
  cancel: `The person dismissed the confirmation, so the call was not run. ${NOTHING_CHARGED}`,
  missing: `The retry carried no answer to the confirmation. ${NOTHING_CHARGED} ${ASK_AGAIN}`,
  malformed: `The confirmation could not be verified. ${NOTHING_CHARGED} ${ASK_AGAIN}`,
  signature: `The confirmation could not be verified. ${NOTHING_CHARGED} ${ASK_AGAIN}`,
  expired: `The confirmation expired (a quote lasts at most 10 minutes). ${NOTHING_CHARGED} ${ASK_AGAIN}`,
  mismatch: `The confirmation was given for another call (another caller, tool, input or price). ${NOTHING_CHARGED} ${ASK_AGAIN}`,
  reused: `This confirmation was answered already; a confirmation buys one call. ${NOTHING_CHARGED} ${ASK_AGAIN}`,
  settled: 'This confirmation was accepted already, so its call stands; call again without it to read that call.',
  unverified: `The retry carried no signed quote. ${NOTHING_CHARGED} ${ASK_AGAIN}`,
} as const;

type Refusal = keyof typeof REFUSALS;

/** A tool result with `isError` and one sentence: what the model tells the person. */
export function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** What the client of a request declared it can be asked; nothing unless it speaks 2026-07-28. */
export function askableOf(modern: boolean, envelope: object | undefined): Askable {
  if (!modern) return { form: false, url: false };
  const capabilities = (envelope as Record<string, { elicitation?: { form?: unknown; url?: unknown } } | undefined> | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ];
  const elicitation = capabilities?.elicitation;
  if (typeof elicitation !== 'object' || elicitation === null) return { form: false, url: false };
  // An empty elicitation capability means form mode (the specification keeps that for older clients).
  const form = elicitation.form !== undefined || elicitation.url === undefined;
  return { form, url: elicitation.url !== undefined };
}

/**
 * The person's confirmation of a spend over MCP (docs/connecting-assistants.md). A paid call priced at
 * least `SPEND_CONFIRMATION_ABOVE` is answered, for a 2026-07-28 client that declared form elicitation,
 * with `input_required`: a form naming the operation, a summary of its input and the exact price, and a
 * signed quote as `requestState`. The retry runs the handler only when it carries the person's yes and that
 * quote, unexpired, for the same subject, tool, input and price, and unused (its nonce is consumed in the
 * backend, so the quote buys one call on whichever replica). Everything else is a tool error that says
 * nothing was charged, and nothing is. When the handler finds the funds short, a client that declared URL
 * elicitation is sent to the top-up page and retries; others get the link in the tool error.
 */
export class SpendConfirmation {
  constructor(
    private readonly settings: Pick<BillingSettings, 'spendConfirmation' | 'spendConfirmationAbove'>,
    private readonly quotes: SpendQuotes,
    private readonly nonces: QuoteNonceStore,
    private readonly jobs: Pick<JobService, 'isAccepted'>,
  ) {}

  /** The `requestState.verify` hook: opens the quote and never throws, so a bad one becomes a tool error, not -32602. */
  readonly verify = (state: string): QuoteCheck => this.quotes.open(state);

  /** Whether `call` runs now, or what it is answered instead. */
  async gate(call: GatedCall): Promise<Gate> {
    const price = this.priceToConfirm(call.tool, call.input);
    if (price === undefined) return answeredTopUp(call.round) ?? RUN;
    if (!call.askable.form) return this.settings.spendConfirmation === 'required' ? { answer: this.cannotAsk(price) } : RUN;
    const terms: SpendTerms = { subject: call.subject, tool: call.tool.name, input: call.input, price };
    const { responses, quote } = call.round;
    if (responses === undefined && quote === undefined) return this.ask(call.tool, terms);
    const refusal = await this.redeem(terms, call.round);
    return refusal ? { answer: toolError(REFUSALS[refusal]) } : RUN;
  }

  /**
   * What a run that found the funds short is answered: a 2026-07-28 client that declared URL elicitation is
   * sent to the top-up page, with a quote that lets its retry run without asking again; undefined otherwise
   * (the handler's own tool error, which names the link, the balance and the price, stands).
   */
  topUp(call: GatedCall, error: unknown): InputRequiredResult | undefined {
    if (!(error instanceof InsufficientCreditsError) || !call.askable.url) return undefined;
    const { state } = this.quotes.mint({ subject: call.subject, tool: call.tool.name, input: call.input, price: error.price }, 'top_up');
    return inputRequired({
      inputRequests: {
        [TOP_UP_KEY]: inputRequired.elicitUrl({
          message: `${call.tool.title} costs ${credits(error.price)} and the balance is ${error.balance}. Buy credits, then come back to run it.`,
          url: error.topUpUrl,
        }),
      },
      requestState: state,
    });
  }

  /** The price the person must confirm for this call, or undefined when it is not asked (free, off, below the threshold). */
  private priceToConfirm(tool: ToolDefinition, input: Record<string, unknown>): number | undefined {
    const rule = tool.operation.price;
    if (!rule || this.settings.spendConfirmation === 'off') return undefined;
    let price: number;
    try {
      // The job's input where the operation's body shape puts it: the `input` argument, or the arguments themselves.
      price = priceOf(rule, jobInputOf(tool.operation, tool.bodyOf(input)));
    } catch {
      // An input outside the price rule is the handler's to refuse (its 400), before anything is charged.
      return undefined;
    }
    return price >= this.settings.spendConfirmationAbove ? price : undefined;
  }

  /** The first round: a replay of an accepted key runs (it was paid for); anything else asks the person. */
  private async ask(tool: ToolDefinition, terms: SpendTerms): Promise<Gate> {
    const key = terms.input.idempotency_key;
    if (typeof key === 'string' && (await this.jobs.isAccepted(terms.subject, key))) return RUN;
    const { state } = this.quotes.mint(terms, 'confirm');
    const summary = inputSummary(terms.input);
    return {
      answer: inputRequired({
        inputRequests: {
          [CONFIRM_KEY]: inputRequired.elicit({
            message: `Spend ${credits(terms.price)} on "${tool.title}" (${tool.name})? Input: ${summary || 'none'}. Nothing is charged unless you confirm.`,
            requestedSchema: {
              type: 'object',
              properties: {
                confirm: {
                  type: 'boolean',
                  title: `Spend ${credits(terms.price)}`,
                  description: `Run ${tool.name} for ${credits(terms.price)}.`,
                },
              },
              required: ['confirm'],
            },
          }),
        },
        requestState: state,
      }),
    };
  }

  /**
   * A retry's answer and quote: undefined when it may run, else why not. The first answer a quote gets is the
   * only one it ever has: a no burns it, and a yes resent runs the same call again, which its idempotency key
   * makes a replay of the job the first yes accepted.
   */
  private async redeem(terms: SpendTerms, round: Round): Promise<Refusal | undefined> {
    const checked = round.quote;
    if (checked === undefined) return 'unverified';
    if (!checked.ok) return checked.reason;
    if (!this.quotes.matches(checked.quote, terms)) return 'mismatch';
    const answer = answerTo(checked.quote.step, round.responses);
    const ttlMs = this.quotes.remainingMs(checked.quote);
    if (answer !== 'accept') {
      const held = await this.nonces.settle(checked.quote.nonce, 'refused', ttlMs);
      return held.answer === 'accepted' ? 'settled' : answer;
    }
    const held = await this.nonces.settle(checked.quote.nonce, 'accepted', ttlMs);
    return held.answer === 'accepted' ? undefined : 'reused';
  }

  /** The refusal of a client that cannot be asked, under `SPEND_CONFIRMATION=required`. */
  private cannotAsk(price: number): CallToolResult {
    return toolError(
      `This connector asks the person to confirm every spend of ${credits(this.settings.spendConfirmationAbove)} or more, ` +
        `and this call costs ${credits(price)}, but this client cannot ask: it does not declare form elicitation, or it speaks ` +
        'MCP 2025-11-25, whose questions must reach the same server process. The call was not run. ' +
        `${NOTHING_CHARGED} Use a client that supports MCP 2026-07-28 with form elicitation.`,
    );
  }
}

/** The person's answer to the question a quote was minted with: a yes to the form, or a return from the top-up page. */
function answerTo(step: QuoteStep, responses: Record<string, unknown> | undefined): 'accept' | 'decline' | 'cancel' | 'missing' {
  const view = inputResponse(responses, step === 'confirm' ? CONFIRM_KEY : TOP_UP_KEY);
  if (view.kind !== 'elicit') return 'missing';
  if (view.action !== 'accept') return view.action;
  // Only the box ticked is a yes: no content, another value or a string 'true' is not. A URL elicitation has no content.
  return step === 'top_up' || view.content?.confirm === true ? 'accept' : 'decline';
}

/** A retry from the top-up page when no confirmation applies: a person who turned it down is told nothing was charged. */
function answeredTopUp(round: Round): Gate | undefined {
  const view = inputResponse(round.responses, TOP_UP_KEY);
  if (view.kind !== 'elicit' || view.action === 'accept') return undefined;
  return { answer: toolError(`The person did not top up, so the call was not run. ${NOTHING_CHARGED}`) };
}

function credits(count: number): string {
  return `${count} credit${count === 1 ? '' : 's'}`;
}
