import { AppError } from './app-error';

/**
 * 402 in `prepaid` billing: the subject's balance cannot hold the job's price. Nothing was recorded or
 * charged; the body carries the balance, the price and where to buy more, so the caller can send the person
 * there and retry with the same idempotency key.
 */
export class InsufficientCreditsError extends AppError {
  readonly balance: number;
  readonly price: number;
  readonly topUpUrl: string;

  constructor(balance: number, price: number, topUpUrl: string) {
    super(
      402,
      'insufficient-credits',
      'Not enough credits',
      `This job costs ${price} credit${price === 1 ? '' : 's'} and the balance is ${balance}. ` +
        `Top up at ${topUpUrl}, then retry with the same idempotency key; nothing was charged.`,
      { extensions: { balance, price, top_up_url: topUpUrl } },
    );
    this.balance = balance;
    this.price = price;
    this.topUpUrl = topUpUrl;
  }
}
