import { ValidationError } from '../../platform/errors/problems';

/** Longest subject accepted, in UTF-16 code units after trimming and NFC normalisation. */
export const MAX_SUBJECT_LENGTH = 256;

// Control characters (Cc), invisible formatting characters (Cf: zero-width spaces and joiners, word joiner,
// BOM, bidi controls), line and paragraph separators, and lone surrogates. A subject is shown in logs and UIs
// and compared byte for byte, so none of these may hide in it.
const REFUSED = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * The one way a subject enters the service (link, revoke, OAuth approval): trimmed, then normalised to
 * Unicode NFC so that `josé` typed composed or decomposed is one identity. Refuses (400) a subject that is
 * empty or longer than {@link MAX_SUBJECT_LENGTH} once normalised, or that holds control or invisible
 * formatting characters.
 *
 * @param raw the subject as the caller sent it
 * @param path where the subject was in the request, for the problem's `errors`
 */
export function normalizeSubject(raw: string, path = '/body/subject'): string {
  const subject = raw.normalize('NFC').trim();
  if (subject.length < 1 || subject.length > MAX_SUBJECT_LENGTH || REFUSED.test(subject)) {
    throw new ValidationError('The subject is not valid.', [
      {
        path,
        message: `must be 1 to ${MAX_SUBJECT_LENGTH} characters after trimming, with no control or invisible formatting characters`,
      },
    ]);
  }
  return subject;
}
