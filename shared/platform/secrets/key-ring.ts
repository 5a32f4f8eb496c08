import { type DerivedKeys, deriveKeys } from './derived-keys';

/** One secret's keys, and whether they come from the previous secret (accepted, never used to sign). */
export interface RingEntry {
  readonly keys: DerivedKeys;
  readonly previous: boolean;
}

/**
 * The keys of `CONNECTOR_SECRET` and, during a rotation's overlap, of `CONNECTOR_SECRET_PREVIOUS`.
 * Everything new is signed with {@link current}; a value is checked against the entry its key id names, or,
 * when it names none (signed by a release before 0.7.0, which had no key ids), against each entry in turn,
 * current first.
 */
export class KeyRing {
  readonly current: DerivedKeys;
  /** Every accepted entry, current first. */
  readonly entries: readonly RingEntry[];

  constructor(current: DerivedKeys, previous?: DerivedKeys) {
    this.current = current;
    this.entries = [{ keys: current, previous: false }, ...(previous ? [{ keys: previous, previous: true }] : [])];
  }

  /** The ring of the configured secrets. */
  static fromSecrets(current: string, previous?: string): KeyRing {
    return new KeyRing(deriveKeys(current), previous === undefined ? undefined : deriveKeys(previous));
  }

  /** The entry whose key id is `keyId`, or undefined (a retired or unknown key). */
  byKeyId(keyId: string): RingEntry | undefined {
    return this.entries.find((entry) => entry.keys.keyId === keyId);
  }
}
