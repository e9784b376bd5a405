import { registeredUserIdFilter, type KeyPrincipal } from '@patchbay/auth';
import { ValidationError } from '@patchbay/errors';
import { isUuid } from '@patchbay/service-kit';
import type { PageParams } from '@patchbay/pagination';
import type { Db } from '../db';
import type { AuthScope, Connection, ConnectionStatus, Prisma } from '../generated/prisma/client';

export const AUTH_SCOPES: readonly AuthScope[] = ['INDIVIDUAL', 'SHARED', 'ORGANIZATION'];
export const CONNECTION_STATUSES: readonly ConnectionStatus[] = ['ACTIVE', 'ERROR'];

/**
 * A stored credential as the API shows it (spec: Connection): what it is for and its state, never a
 * credential value.
 */
export interface ConnectionRecord {
  id: string;
  /** The connector's slug. */
  connector: string;
  auth_scope: AuthScope;
  /** INDIVIDUAL: the registered user the credential belongs to; null otherwise. */
  registered_user_id: string | null;
  /** SHARED: the origin_company_id of the users sharing it; null otherwise. */
  company_id: string | null;
  /** ACTIVE, or ERROR after a terminal authentication failure (the user must authenticate again). */
  status: ConnectionStatus;
  /** Why the connection is in ERROR; null when ACTIVE. */
  status_reason: string | null;
  /** api_key, bearer_token, oauth2 or secret. */
  auth_type: string;
  /** The organization's OAuth app the tokens were obtained with, if any. */
  application_credential_id: string | null;
  created_at: string;
  updated_at: string;
  /** When the OAuth access token was last refreshed; null if never. */
  last_refreshed_at: string | null;
  /** When the current OAuth access token expires; null when it does not (or for non-OAuth credentials). */
  access_token_expires_at: string | null;
}

export interface ConnectionFilters {
  authScopes?: AuthScope[];
  company?: string;
  connector?: string;
  createdAtAfter?: Date;
  createdAtBefore?: Date;
  statuses?: ConnectionStatus[];
  /** Only the INDIVIDUAL connections of this registered user (its id). */
  registeredUserId?: string;
}

export function toConnectionRecord(row: Connection): ConnectionRecord {
  return {
    id: row.id,
    connector: row.connectorSlug,
    auth_scope: row.authScope,
    registered_user_id: row.registeredUserId,
    company_id: row.companyId,
    status: row.status,
    status_reason: row.statusReason,
    auth_type: row.authType,
    application_credential_id: row.applicationCredentialId,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_refreshed_at: row.lastRefreshedAt?.toISOString() ?? null,
    access_token_expires_at: row.accessTokenExpiresAt?.toISOString() ?? null,
  };
}

/**
 * Connections of the key's organization and environment, newest first. `company` keeps the SHARED
 * connections of that company; date bounds are inclusive. A key restricted to registered users sees
 * only the INDIVIDUAL connections of those users: SHARED and ORGANIZATION credentials belong to
 * companies and the organization, not to the users the key may act for.
 */
export async function listConnections(db: Db, principal: KeyPrincipal, filters: ConnectionFilters, page: PageParams): Promise<{ count: number; results: ConnectionRecord[] }> {
  if (filters.createdAtAfter && filters.createdAtBefore && filters.createdAtAfter > filters.createdAtBefore) {
    throw ValidationError.forField('query.created_at_after', 'must not be later than created_at_before');
  }
  const allowedUsers = registeredUserIdFilter(principal);
  const and: Prisma.ConnectionWhereInput[] = [];
  if (filters.authScopes) and.push({ authScope: { in: filters.authScopes } });
  if (filters.company !== undefined) and.push({ authScope: 'SHARED', companyId: filters.company });
  if (filters.connector !== undefined) and.push({ connectorSlug: filters.connector });
  if (filters.statuses) and.push({ status: { in: filters.statuses } });
  if (filters.registeredUserId !== undefined) {
    if (!isUuid(filters.registeredUserId)) throw ValidationError.forField('query.registered_user_id', 'must be a registered user\'s id (a UUID), as GET /api/v1/registered-users returns it');
    and.push({ authScope: 'INDIVIDUAL', registeredUserId: filters.registeredUserId });
  }
  if (filters.createdAtAfter || filters.createdAtBefore) {
    and.push({ createdAt: { ...(filters.createdAtAfter ? { gte: filters.createdAtAfter } : {}), ...(filters.createdAtBefore ? { lte: filters.createdAtBefore } : {}) } });
  }
  if (allowedUsers !== null) and.push({ authScope: 'INDIVIDUAL', registeredUserId: { in: allowedUsers } });
  const where: Prisma.ConnectionWhereInput = { organizationId: principal.organizationId, environment: principal.environment, AND: and };
  const [count, rows] = await Promise.all([
    db.connection.count({ where }),
    db.connection.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.pageSize }),
  ]);
  return { count, results: rows.map(toConnectionRecord) };
}
