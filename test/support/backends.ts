/** The backends every HTTP suite runs against: one suite, parametrised, never copied. */
export type BackendKind = 'memory' | 'redis';

export const BACKENDS: readonly BackendKind[] = ['memory', 'redis'];
