import { randomUUID } from 'node:crypto';
import type { SecretBox } from '@patchbay/secrets';
import type { Tx } from '../db';
import type { AuthScope, Connection, Environment } from '../generated/prisma/client';

/** What is sealed in `connections.credential_sealed`: the form values, or the OAuth tokens. */
export interface StoredSecret {
  /** Values of the connector's credential_fields (API key, site URL...); `{}` for a pure OAuth credential. */
  values: Record<string, string>;
  access_token?: string;
  refresh_token?: string;
  token_type?: string;
  scope?: string;
  /** Seconds the access token lives, as the provider said when it was issued. */
  expires_in?: number;
}

export interface StoreCredentialInput {
  organizationId: string;
  environment: Environment;
  connectorSlug: string;
  authScope: AuthScope;
  /** Required for INDIVIDUAL; ignored otherwise (a SHARED or ORGANIZATION credential belongs to no single user). */
  registeredUserId?: string | null;
  /** Required for SHARED: the origin_company_id of the user's shared_credential_group; ignored otherwise. */
  companyId?: string | null;
  /** api_key, bearer_token, oauth2 or secret. */
  authType: string;
  secret: StoredSecret;
  /** The organization's OAuth app the tokens were obtained with, if any. */
  applicationCredentialId?: string | null;
}

/** The sealing context of a connection's credential: a ciphertext copied to another row does not open. */
export function connectionSecretContext(connectionId: string): string {
  return `connection:${connectionId}`;
}

/** The subject part of a connection's unique key: one credential per (connector, scope, subject). */
export function connectionSubjectKey(input: Pick<StoreCredentialInput, 'authScope' | 'registeredUserId' | 'companyId'>): string {
  switch (input.authScope) {
    case 'INDIVIDUAL':
      if (!input.registeredUserId) throw new Error('an INDIVIDUAL credential needs registeredUserId');
      return input.registeredUserId;
    case 'SHARED':
      if (!input.companyId) throw new Error('a SHARED credential needs companyId');
      return input.companyId;
    case 'ORGANIZATION':
      return 'organization';
  }
}

/**
 * Creates or replaces the credential of one (organization, environment, connector, scope, subject):
 * the Connection row the spec lists. A replaced credential keeps its connection id (its sealing
 * context) and becomes ACTIVE again with its error cleared. Runs inside the caller's transaction so
 * the caller can mark a link token used, or write an audit event, atomically with it.
 */
export async function storeCredential(
  tx: Tx,
  box: Pick<SecretBox, 'sealJson'>,
  input: StoreCredentialInput,
): Promise<{ connection: Connection; created: boolean }> {
  const subjectKey = connectionSubjectKey(input);
  const unique = {
    organizationId: input.organizationId,
    environment: input.environment,
    connectorSlug: input.connectorSlug,
    authScope: input.authScope,
    subjectKey,
  };
  const accessTokenExpiresAt = input.secret.expires_in !== undefined ? new Date(Date.now() + input.secret.expires_in * 1000) : null;
  const fields = {
    authType: input.authType,
    accessTokenExpiresAt,
    applicationCredentialId: input.applicationCredentialId ?? null,
    status: 'ACTIVE' as const,
    statusReason: null,
  };

  const existing = await tx.connection.findUnique({ where: { organizationId_environment_connectorSlug_authScope_subjectKey: unique }, select: { id: true } });
  if (!existing) {
    const id = randomUUID();
    // ON CONFLICT DO NOTHING: a concurrent first connection of the same subject wins without
    // aborting this transaction, and this one then replaces its credential below.
    const inserted = await tx.connection.createMany({
      data: [{
        id,
        ...unique,
        registeredUserId: input.authScope === 'INDIVIDUAL' ? (input.registeredUserId ?? null) : null,
        companyId: input.authScope === 'SHARED' ? (input.companyId ?? null) : null,
        credentialSealed: box.sealJson(input.secret, connectionSecretContext(id)),
        ...fields,
      }],
      skipDuplicates: true,
    });
    if (inserted.count === 1) return { connection: await tx.connection.findUniqueOrThrow({ where: { id } }), created: true };
  }
  const current = existing ?? (await tx.connection.findUniqueOrThrow({ where: { organizationId_environment_connectorSlug_authScope_subjectKey: unique }, select: { id: true } }));
  const connection = await tx.connection.update({
    where: { id: current.id },
    data: { credentialSealed: box.sealJson(input.secret, connectionSecretContext(current.id)), ...fields },
  });
  return { connection, created: false };
}
