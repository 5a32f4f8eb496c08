/**
 * What is left of one positive grant: `remaining` credits not yet held, spent, expired or voided. `open` until
 * its expiry is swept (`expired`) or the dashboard voids it (`voided`); a grant without `expiresAt` never
 * expires. `seq` orders grants of the same expiry (the older first).
 */
export interface Lot {
  grantId: string;
  remaining: number;
  expiresAt?: number;
  seq: number;
  state: 'open' | 'expired' | 'voided';
}

/**
 * Where a hold's credits came from, in the order they were drawn: `[grant id, credits]`, the grant id `''`
 * for the account's credits outside any lot (granted before lots existed, or an adjustment's debt).
 */
export type Allocation = Array<[string, number]>;

/** Credits of a finished lot given back by a release: they leave the balance at once, as `expire` or `void`. */
export interface GivenBack {
  expired: Allocation;
  voided: Allocation;
}

/** Whether a lot is open and past its expiry (its sweep has not run yet): its credits can no longer be drawn. */
export function isDue(lot: Lot, now: number): boolean {
  return lot.state === 'open' && lot.expiresAt !== undefined && lot.expiresAt <= now;
}

/** The credits of open lots past their expiry: in the balance until the sweep expires them, never spendable. */
export function dueCredits(lots: Iterable<Lot>, now: number): number {
  let due = 0;
  for (const lot of lots) if (isDue(lot, now)) due += lot.remaining;
  return due;
}

/** The lots a spend draws from, in order: the one that expires first, a lot without expiry last, older first. */
export function drawOrder(lots: Iterable<Lot>, now: number): Lot[] {
  const open = [...lots].filter((lot) => lot.state === 'open' && lot.remaining > 0 && !isDue(lot, now));
  const expiry = (lot: Lot) => lot.expiresAt ?? Number.POSITIVE_INFINITY;
  return open.sort((x, y) => expiry(x) - expiry(y) || x.seq - y.seq);
}

/** Takes `amount` from the lots in {@link drawOrder} (changing them), the rest from outside any lot. */
export function draw(lots: Iterable<Lot>, amount: number, now: number): Allocation {
  const allocation: Allocation = [];
  let need = amount;
  for (const lot of drawOrder(lots, now)) {
    if (need <= 0) break;
    const take = Math.min(lot.remaining, need);
    lot.remaining -= take;
    need -= take;
    allocation.push([lot.grantId, take]);
  }
  if (need > 0) allocation.push(['', need]);
  return allocation;
}

/**
 * Gives `amount` of a hold back to the lots it was drawn from, the last drawn first (changing them). A lot
 * still open takes its credits back (a due one is then expired by the sweep, with its event); credits of a
 * lot already expired or voided leave the balance at once, as the decision record
 * docs/decisions/release-after-expiry.md says.
 */
export function giveBack(lots: ReadonlyMap<string, Lot>, allocation: Allocation, amount: number): GivenBack {
  const given: GivenBack = { expired: [], voided: [] };
  let left = amount;
  for (const [grantId, credits] of [...allocation].reverse()) {
    if (left <= 0) break;
    const back = Math.min(credits, left);
    left -= back;
    const lot = lots.get(grantId);
    if (!lot) continue;
    if (lot.state === 'open') lot.remaining += back;
    else given[lot.state].push([grantId, back]);
  }
  return given;
}
