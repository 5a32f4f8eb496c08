import { startX402Stand, type X402Stand } from './x402-stand';

/**
 * The x402 stand of this test process, as one suite borrows it: the stand without `close`, and `release` for
 * the suite's `after` hook.
 */
export interface SharedX402Stand extends Omit<X402Stand, 'close'> {
  /** Hands the stand back as the next suite expects it: a facilitator left killed or stalling is restarted. */
  release(): Promise<void>;
}

let shared: Promise<SharedX402Stand> | undefined;

/** Wraps `stand` so that what a suite does to its facilitator is known, and undone by `release`. */
function borrowable(stand: X402Stand): SharedX402Stand {
  let answering = true;
  const { close: _close, ...rest } = stand;
  return {
    ...rest,
    killFacilitator: async () => {
      answering = false;
      await stand.killFacilitator();
    },
    restartFacilitator: async () => {
      answering = false;
      await stand.restartFacilitator();
      answering = true;
    },
    setFacilitatorMode: async (mode) => {
      answering = false;
      await stand.setFacilitatorMode(mode);
      answering = mode.stall === undefined;
    },
    release: async () => {
      if (answering) return;
      await stand.restartFacilitator();
      answering = true;
    },
  };
}

/**
 * The stand every x402 suite of this process shares, started by the first one that asks (a stand takes 2 to
 * 11 s and two processes: one per mocha process, not one per suite). Suites of one process run one after
 * another (a mocha worker runs one file at a time), so a suite may kill or stall the facilitator as long as its
 * `after` hook calls `release`; each suite pays with payers of its own (`newPayer`) or reads balances as
 * differences. The stand is never closed: its processes end when this one does, their standard input
 * closing (scripts/x402/script-process.ts), since mocha runs a root `afterAll` hook after every file in a
 * parallel worker and global teardown only in the main process. A start that failed is tried again by the
 * next suite.
 */
export function sharedX402Stand(): Promise<SharedX402Stand> {
  shared ??= startX402Stand().then(borrowable, (error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}
