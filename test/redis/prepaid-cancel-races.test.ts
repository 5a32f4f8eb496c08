import { twoApiCancelProof } from '../support/cancel-race-flows';
import { startRedisPair } from '../support/harness';

// Issue 36 item 7: cancels racing the pick-up in prepaid billing, through two APIs (each with its worker) on
// one Redis node. The metered proof runs in test/http/cancel-races.test.ts; the SIGKILLed worker's prepaid race
// in test/redis/cancel-crash-race.test.ts.
twoApiCancelProof('one Redis node', startRedisPair, 'prepaid');
