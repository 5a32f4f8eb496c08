import type { PreRegisteredClient } from '../../platform/config/oauth-config';
import { newId } from '../../platform/util/ids';
import { isAllowedRedirectUri } from './client-metadata';
import type { OAuthStateStore } from './oauth-state-store';
import { hashSecret, newOpaqueSecret } from './opaque-secret';

/** A new confidential client: the record to keep (secret hashed) and the secret, to be shown once. */
export interface NewConfidentialClient {
  record: PreRegisteredClient;
  secret: string;
}

/**
 * Makes a confidential client for a platform that wants an id and a secret typed in (GPT Actions). Only
 * the secret's hash is in the record. Its redirect URIs must be https.
 */
export function newConfidentialClient(name: string, redirectUris: readonly string[]): NewConfidentialClient {
  const clientName = name.trim();
  if (!clientName || clientName.length > 100) throw new Error('--name must be 1 to 100 characters');
  if (redirectUris.length === 0) throw new Error('give at least one --redirect-uri');
  for (const uri of redirectUris) {
    if (!uri.startsWith('https://') || !isAllowedRedirectUri(uri))
      throw new Error(`redirect URI ${JSON.stringify(uri)} must be an https URL without a fragment`);
  }
  const secret = newOpaqueSecret();
  return {
    secret,
    record: { client_id: newId('cc'), client_name: clientName, redirect_uris: [...redirectUris], secret_sha256: hashSecret(secret) },
  };
}

/** Stores a pre-registered client in the backend's store (Redis), where every replica finds it. */
export async function storeConfidentialClient(store: OAuthStateStore, record: PreRegisteredClient): Promise<void> {
  await store.put('client', record.client_id, JSON.stringify(record), 0);
}
