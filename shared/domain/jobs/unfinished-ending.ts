/**
 * Thrown by an ending whose writes (the decision, the settlement, what the job shows of them) did not all
 * reach the store: the job must not be marked finished, but taken again to end it the same way (`cause`:
 * what failed). The decision, when written, is found then, and the settlement is once per job.
 */
export class UnfinishedEnding extends Error {
  constructor(cause: unknown) {
    super('the job ending could not be recorded', { cause });
    this.name = 'UnfinishedEnding';
  }
}
