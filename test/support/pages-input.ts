import * as z from 'zod';

/** An input schema with a bounded `pages` count, shared by tests of price rules checked against a schema. */
export const pages = z.strictObject({ topic: z.string().max(9), pages: z.int().min(1).max(5) });
