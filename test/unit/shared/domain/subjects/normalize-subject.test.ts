import { expect } from 'chai';
import fc from 'fast-check';
import { MAX_SUBJECT_LENGTH, normalizeSubject } from '../../../../../shared/domain/subjects/normalize-subject';
import { ValidationError } from '../../../../../shared/platform/errors/problems';

const COMPOSED = 'jos\u00e9@example.com';
const DECOMPOSED = 'jose\u0301@example.com';

describe('normalizeSubject', () => {
  it('composed and decomposed forms of the same subject normalise to the same NFC string', () => {
    expect(COMPOSED).to.not.equal(DECOMPOSED);
    expect(normalizeSubject(DECOMPOSED)).to.equal(COMPOSED);
    expect(normalizeSubject(COMPOSED)).to.equal(COMPOSED);
  });

  it('surrounding whitespace is trimmed', () => {
    expect(normalizeSubject('  alice@example.com\t')).to.equal('alice@example.com');
  });

  for (const [name, char] of [
    ['zero-width space U+200B', '\u200b'],
    ['zero-width joiner U+200D', '\u200d'],
    ['left-to-right mark U+200E', '\u200e'],
    ['right-to-left mark U+200F', '\u200f'],
    ['right-to-left override U+202E', '\u202e'],
    ['word joiner U+2060', '\u2060'],
    ['first strong isolate U+2068', '\u2068'],
    ['byte order mark U+FEFF', '\ufeff'],
    ['soft hyphen U+00AD', '\u00ad'],
    ['NUL', '\u0000'],
    ['line feed', '\n'],
    ['DEL', '\u007f'],
    ['C1 control U+0085', '\u0085'],
    ['line separator U+2028', '\u2028'],
    ['lone surrogate', '\ud800'],
  ] as const) {
    it(`a subject holding a ${name} inside it is refused with a ValidationError`, () => {
      expect(() => normalizeSubject(`ali${char}ce@example.com`)).to.throw(ValidationError);
    });
  }

  it('an empty or all-whitespace subject is refused', () => {
    expect(() => normalizeSubject('')).to.throw(ValidationError);
    expect(() => normalizeSubject('   ')).to.throw(ValidationError);
  });

  it('a subject of exactly the maximum length is accepted and one longer is refused', () => {
    expect(normalizeSubject('a'.repeat(MAX_SUBJECT_LENGTH))).to.have.length(MAX_SUBJECT_LENGTH);
    expect(() => normalizeSubject('a'.repeat(MAX_SUBJECT_LENGTH + 1))).to.throw(ValidationError);
  });

  it('the refusal names the path it was given', () => {
    try {
      normalizeSubject('', '/body/approve/subject');
      expect.fail('should have thrown');
    } catch (error) {
      expect((error as ValidationError).errors?.[0].path).to.equal('/body/approve/subject');
    }
  });

  it('for any accepted string the result is NFC, trimmed, and a fixed point', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (raw) => {
        let subject: string;
        try {
          subject = normalizeSubject(raw);
        } catch (error) {
          return error instanceof ValidationError;
        }
        return subject === subject.normalize('NFC') && subject === subject.trim() && normalizeSubject(subject) === subject;
      }),
    );
  });
});
