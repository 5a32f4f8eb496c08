import { expect } from 'chai';
import { AppError } from '../../../../../shared/platform/errors/app-error';

describe('AppError', () => {
  it('built from one problem, it carries the status, the urn type of its slug, the title and the detail as message', () => {
    const error = new AppError({ status: 409, slug: 'job-finished', title: 'Job already finished', detail: 'Too late.' });
    expect([error.status, error.type, error.title, error.message]).to.deep.equal([
      409,
      'urn:connector:problem:job-finished',
      'Job already finished',
      'Too late.',
    ]);
  });

  it('without headers, extension members or field errors, it has empty headers and members and no field errors', () => {
    const error = new AppError({ status: 404, slug: 'not-found', title: 'Not found', detail: 'Nothing is here.' });
    expect([error.headers, error.extensions, error.errors]).to.deep.equal([{}, {}, undefined]);
  });

  it('keeps the headers, extension members and field errors it is given', () => {
    const errors = [{ path: '/body/x', message: 'is invalid' }];
    const error = new AppError({
      status: 400,
      slug: 'validation',
      title: 'Invalid request',
      detail: 'Bad.',
      errors,
      headers: { 'Retry-After': '1' },
      extensions: { price: 2 },
    });
    expect([error.errors, error.headers, error.extensions]).to.deep.equal([errors, { 'Retry-After': '1' }, { price: 2 }]);
  });

  it('is named after the class that was built, so a subclass logs its own name', () => {
    class TeapotError extends AppError {}
    const error = new TeapotError({ status: 418, slug: 'teapot', title: 'Teapot', detail: 'Short and stout.' });
    expect([error.name, error instanceof Error]).to.deep.equal(['TeapotError', true]);
  });
});
