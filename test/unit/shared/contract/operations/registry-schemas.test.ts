import { expect } from 'chai';
import type { Operation } from '../../../../../shared/contract/operations/operation';
import { OPERATIONS } from '../../../../../shared/contract/operations/registry';
import { requestBodySchema, schemaComponents } from '../../../../../shared/contract/operations/registry-schemas';
import { COMPONENT_SCHEMAS } from '../../../../../shared/contract/operations/schemas';

type Schema = { properties: Record<string, { maxLength?: number; properties?: Record<string, { maxLength?: number }> }> };

describe('registry schemas', () => {
  it('requestBodySchema: undefined without a body; an object schema for an operation with one', () => {
    expect(requestBodySchema({})).to.equal(undefined);
    const withBody = OPERATIONS.find((operation) => operation.requestBody !== undefined)!;
    expect(requestBodySchema(withBody)).to.have.property('type', 'object');
  });

  it('schemaComponents: every shared component, plus Job, JobSummary and JobPage', () => {
    const components = schemaComponents(OPERATIONS);
    for (const name of [...Object.keys(COMPONENT_SCHEMAS), 'Job', 'JobSummary', 'JobPage']) expect(components, name).to.have.property(name);
  });

  it("Job: the operation id bounded by the registry's longest paid operation id", () => {
    const longest = Math.max(...OPERATIONS.filter((operation) => operation.job).map((operation) => operation.operationId.length));
    const job = schemaComponents(OPERATIONS).Job as unknown as Schema;
    expect(job.properties.operation.maxLength).to.equal(longest);
  });

  it('JobSummary: its error message cut shorter than the one getJob shows', () => {
    const components = schemaComponents(OPERATIONS);
    const read = (components.Job as unknown as Schema).properties.error.properties!.message.maxLength!;
    const listed = (components.JobSummary as unknown as Schema).properties.error.properties!.message.maxLength!;
    expect(listed).to.be.lessThan(read);
  });

  it('a registry without paid jobs: job input and result are open objects', () => {
    const free = OPERATIONS.filter((operation) => !operation.job) as Operation[];
    const job = schemaComponents(free).Job as unknown as { properties: Record<string, unknown> };
    expect(job.properties.input).to.deep.equal({ type: 'object' });
  });

  it("the shared components are not changed by building a registry's map", () => {
    const before = JSON.stringify(COMPONENT_SCHEMAS);
    schemaComponents(OPERATIONS);
    expect(JSON.stringify(COMPONENT_SCHEMAS)).to.equal(before);
  });
});
