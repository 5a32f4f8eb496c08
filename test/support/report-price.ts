/** The rule of the guide's report, 2 credits per page of 1 to 5: its phrase, and its `x-cost` as published. */
export const REPORT_STATEMENT = '2 credits per page (input.pages, 1 to 5), so 2 to 10 credits';

export const REPORT_X_COST = {
  kind: 'per-unit',
  per_unit: 2,
  unit: 'page',
  field: 'input.pages',
  min_units: 1,
  max_units: 5,
  text: `Costs ${REPORT_STATEMENT}.`,
  min: 2,
  max: 10,
} as const;

/** The report's `x-cost` as `/openapi.json` publishes it: the rule and what a cancel after the start keeps (the default). */
export const REPORT_PUBLISHED_COST = { ...REPORT_X_COST, cancel_charge: 'progress' } as const;
