import { type CleanedEnv, customCleanEnv, type ValidatorSpec } from 'envalid';

/** A configuration problem: the variable's name and our own reason, never its value. */
export interface ConfigProblem {
  name: string;
  reason: string;
}

/** One environment variable, declared where its value lands: its name and its envalid spec (default, rule, description). */
export interface Setting<S extends ValidatorSpec<unknown> = ValidatorSpec<unknown>> {
  readonly variable: string;
  readonly spec: S;
}

/** Declares the setting read from `variable` with `spec`; its value's type is envalid's for that spec. */
export function setting<S extends ValidatorSpec<unknown>>(variable: string, spec: S): Setting<S> {
  return { variable, spec };
}

/**
 * A declaration table: each key is where a value lands in the settings object, each entry the variable it is
 * read from; a nested table is a group (`http: { keepAliveTimeoutMs: … }`). The settings' type is derived from
 * it ({@link SettingValues}), so the TSDoc written on a key is what a reader of the field sees.
 */
export interface SettingsTable {
  readonly [key: string]: Setting | SettingsTable;
}

/** The value envalid reads for a spec: `T`, or `T | undefined` for a spec with `default: undefined`. */
type ValueOf<S> = CleanedEnv<{ value: S }>['value'];

type Declared<T> = {
  readonly [K in keyof T]: T[K] extends Setting<infer S> ? ValueOf<S> : T[K] extends SettingsTable ? SettingValues<T[K]> : never;
};

/** Keys whose value may be undefined (a spec with `default: undefined`): optional fields. */
type OptionalKeys<T> = {
  [K in keyof T]: T[K] extends Setting<infer S> ? (undefined extends ValueOf<S> ? K : never) : never;
}[keyof T];

/** The settings object a table reads: one readonly field per key, typed by its spec, optional when it may be unset. */
export type SettingValues<T> = Pick<Declared<T>, Exclude<keyof T, OptionalKeys<T>>> & Partial<Pick<Declared<T>, OptionalKeys<T>>>;

const isSetting = (entry: Setting | SettingsTable): entry is Setting => typeof entry.variable === 'string';

/** Every variable of a table with its spec, by variable name: what envalid reads and docs/configuration.md lists. */
export function variablesOf(table: SettingsTable): Record<string, ValidatorSpec<unknown>> {
  const variables: Record<string, ValidatorSpec<unknown>> = {};
  for (const entry of Object.values(table)) {
    if (isSetting(entry)) variables[entry.variable] = entry.spec;
    else Object.assign(variables, variablesOf(entry));
  }
  return variables;
}

/** How a refused variable is worded in its problem. */
export type Reason = (variable: string, error: Error) => string;

/**
 * Our validators' messages (`must …`, `is …`) never contain the input; envalid's own ones might, so those are
 * replaced by `fallback`. A variable without a value and without a default `is required`.
 */
export function ownReason(fallback = 'is invalid'): Reason {
  return (_variable, error) => {
    if (error.constructor.name === 'EnvMissingError') return 'is required';
    return /^(must|is) /.test(error.message) ? error.message : fallback;
  };
}

/**
 * The rule a spec with `choices` states, as its refusal: `must be one of a, b, c` (the choices, never the value).
 * Undefined for a spec without choices, or for a variable refused because it is missing.
 */
export function choicesRule(spec: ValidatorSpec<unknown> | undefined, error: Error | undefined): string | undefined {
  const choices = spec?.choices;
  if (error?.constructor.name === 'EnvMissingError' || !Array.isArray(choices) || choices.length === 0) return undefined;
  return `must be one of ${choices.join(', ')}`;
}

/** What a table read from an environment: the values, and which variables were refused. */
export interface ReadSettings<T> {
  /** The settings; a refused variable's field is left unset (its problem is reported), an unset optional one too. */
  readonly values: SettingValues<T>;
  /** Whether `variable` was refused. */
  failed(variable: string): boolean;
}

/**
 * Reads a table's variables from `env` with envalid, adding one problem per refused variable (its name and
 * {@link Reason}, never its value) to `problems`, so that the caller reports every problem at once. A value
 * outside a spec's `choices` names them ({@link choicesRule}) whatever `reason` says.
 */
export function readSettings<T extends SettingsTable>(
  env: NodeJS.ProcessEnv,
  table: T,
  problems: ConfigProblem[],
  reason: Reason = ownReason(),
): ReadSettings<T> {
  const refused = new Set<string>();
  const specs = variablesOf(table);
  // Without envalid's strict proxy, which throws on reading a refused variable: those are simply absent here.
  const clean = customCleanEnv(env, specs, (cleaned) => cleaned as Record<string, unknown>, {
    reporter: ({ errors }) => {
      for (const [name, error] of Object.entries(errors)) {
        refused.add(name);
        problems.push({ name, reason: choicesRule(specs[name], error) ?? reason(name, error ?? new Error('')) });
      }
    },
  });
  return { values: place(table, clean, refused) as SettingValues<T>, failed: (variable) => refused.has(variable) };
}

/** Each value put where its table declares it; refused and unset ones left out. */
function place(table: SettingsTable, clean: Record<string, unknown>, refused: ReadonlySet<string>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(table)) {
    if (!isSetting(entry)) values[key] = place(entry, clean, refused);
    else if (!refused.has(entry.variable) && clean[entry.variable] !== undefined) values[key] = clean[entry.variable];
  }
  return values;
}
