/**
 * A value now or later: what a port returns when one backend answers at once and another over the network.
 * The embedded backend's ports answer at once, so a chain of its steps runs as one synchronous step, with no
 * turn in which another request could see a half-made change; Redis's answer later.
 */
export type Step<T> = T | Promise<T>;

/** Runs `next` on the step's value: at once when the value is there, once it resolves otherwise. */
export function andThen<T, U>(step: Step<T>, next: (value: T) => Step<U>): Step<U> {
  return step instanceof Promise ? step.then(next) : next(step);
}

/** Runs `run`; a throw or a rejection in it comes out as `wrap(error)` instead. */
export function wrapFailure<T>(run: () => Step<T>, wrap: (error: unknown) => Error): Step<T> {
  let step: Step<T>;
  try {
    step = run();
  } catch (error) {
    throw wrap(error);
  }
  return step instanceof Promise
    ? step.catch((error: unknown) => {
        throw wrap(error);
      })
    : step;
}
