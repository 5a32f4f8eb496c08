import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { schemaArbitrary } from './schema-arbitrary';

/** One validator for every call: ajv keeps what it compiled, and tools are sampled many times per run. */
const ajv = addFormats(new Ajv2020({ strict: false }));

/**
 * Arguments that fit a tool's input schema, generated from the schema so that a test can call a tool it
 * knows nothing about. A fixed seed gives the same arguments on every run; only values the schema accepts
 * (as ajv reads it, like the server's argument check) are returned.
 */
export function sampleArguments(inputSchema: Record<string, unknown>, seed = 1): Record<string, unknown> {
  const fits = ajv.compile(inputSchema);
  const [args] = fc.sample(
    schemaArbitrary(inputSchema, inputSchema).filter((value) => fits(value)),
    { numRuns: 1, seed },
  );
  return args as Record<string, unknown>;
}
