import { Validator } from '@seriousme/openapi-schema-validator';
import { allOf, type CheckResult, fail, pass } from './check-result';
import { type DoctorContext, documentOperations, label } from './context';
import { gptActionsRules } from './gpt-actions-rules';
import { describeError, isLocalHost, normalizeUrl } from './target';

/**
 * `/openapi.json` as GPT Actions imports it: a valid OpenAPI 3.1 document whose server is the public URL
 * (https), which passes the Actions import rules, and whose every operation refuses a caller without a token.
 * Leaves the parsed document in the context for the llms.txt and MCP rules.
 */
export async function openApiChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  let document: Record<string, any>;
  try {
    const response = await ctx.target.request('/openapi.json');
    if (response.status !== 200 || !response.json || typeof response.json !== 'object') {
      return [
        fail(
          'openapi.fetch',
          `GET /openapi.json answered ${response.status} ${response.headers.get('content-type') ?? ''}; expected 200 with a JSON document`,
        ),
      ];
    }
    document = response.json;
  } catch (error) {
    return [fail('openapi.fetch', `GET /openapi.json failed: ${describeError(error)}`)];
  }
  ctx.document = document;
  const results = [
    pass('openapi.fetch', 'GET /openapi.json answered 200 with JSON'),
    await validity(document),
    ...servers(document, ctx.target.publicUrl),
  ];
  results.push(...gptActionsRules(document));
  results.push(await authRequired(ctx, document));
  return results;
}

async function validity(document: Record<string, any>): Promise<CheckResult> {
  if (typeof document.openapi !== 'string' || !/^3\.1\.\d+$/.test(document.openapi)) {
    return fail('openapi.valid', `openapi is ${JSON.stringify(document.openapi)}; expected 3.1.x`);
  }
  // The validator annotates what it is given; it gets a copy so the rules after it see the document as served.
  const result = await new Validator().validate(structuredClone(document));
  if (!result.valid) {
    const errors = Array.isArray(result.errors) ? result.errors : [];
    const first = errors
      .slice(0, 3)
      .map((e: any) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    return fail('openapi.valid', `not a valid OpenAPI ${document.openapi} document: ${first || 'schema validation failed'}`);
  }
  return pass('openapi.valid', `valid OpenAPI ${document.openapi}`);
}

function servers(document: Record<string, any>, publicUrl: string): CheckResult[] {
  const url = document.servers?.[0]?.url;
  if (typeof url !== 'string')
    return [fail('openapi.servers', 'servers[0].url is missing'), fail('openapi.servers-https', 'servers[0].url is missing')];
  const results = [
    normalizeUrl(url) === publicUrl
      ? pass('openapi.servers', `servers[0].url is ${url}`)
      : fail('openapi.servers', `servers[0].url is ${url}; expected ${publicUrl}`),
  ];
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed) results.push(fail('openapi.servers-https', `servers[0].url ${url} is not an absolute URL`));
  else if (parsed.protocol === 'https:') results.push(pass('openapi.servers-https', 'servers[0].url is https'));
  else if (parsed.protocol === 'http:' && isLocalHost(parsed))
    results.push(pass('openapi.servers-https', 'servers[0].url is http on a local host (fine for local runs only)'));
  else results.push(fail('openapi.servers-https', `servers[0].url ${url} is not https (platforms call only https; http is for localhost)`));
  return results;
}

/** Calls each operation without a token: all must answer 401, so nothing runs (or is charged) anonymously. */
async function authRequired(ctx: DoctorContext, document: Record<string, any>): Promise<CheckResult> {
  const problems: string[] = [];
  const operations = documentOperations(document);
  for (const op of operations) {
    const path = op.path.replace(/\{[^}]+\}/g, 'doctor-probe');
    const hasBody = ['post', 'put', 'patch'].includes(op.method);
    try {
      const response = await ctx.target.request(path, { method: op.method.toUpperCase(), ...(hasBody ? { json: {} } : {}) });
      if (response.status !== 401) problems.push(`${label(op)} answered ${response.status} without a token`);
    } catch (error) {
      problems.push(`${label(op)} failed: ${describeError(error)}`);
    }
  }
  return allOf('openapi.auth-required', problems, `all ${operations.length} operations answer 401 without a token`);
}
