import { allOf, type CheckResult, fail, pass } from './check-result';
import { type DoctorContext, documentOperations } from './context';
import { describeError } from './target';

/** `/llms.txt`: served as plain text, carrying every operation's description and a link to the document. */
export async function llmsTxtChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  let text: string;
  try {
    const response = await ctx.target.request('/llms.txt', { headers: { accept: 'text/plain' } });
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200) return [fail('llms.present', `GET /llms.txt answered ${response.status}`)];
    if (!/^text\/plain\b/i.test(type)) return [fail('llms.present', `GET /llms.txt is ${type || 'untyped'}; expected text/plain`)];
    text = response.text;
  } catch (error) {
    return [fail('llms.present', `GET /llms.txt failed: ${describeError(error)}`)];
  }
  const results = [pass('llms.present', 'GET /llms.txt answered 200 text/plain')];
  if (ctx.document) {
    const operations = documentOperations(ctx.document);
    const missing = operations
      .filter(({ operation }) => typeof operation.description !== 'string' || !text.includes(operation.description))
      .map(({ operation, method, path }) => `${operation.operationId ?? `${method} ${path}`} description is not in llms.txt verbatim`);
    results.push(allOf('llms.descriptions', missing, `all ${operations.length} operation descriptions appear verbatim`));
  } else {
    results.push(fail('llms.descriptions', 'cannot compare: /openapi.json was not available'));
  }
  const link = `${ctx.target.publicUrl}/openapi.json`;
  results.push(text.includes(link) ? pass('llms.openapi-link', `links to ${link}`) : fail('llms.openapi-link', `does not link to ${link}`));
  return results;
}
