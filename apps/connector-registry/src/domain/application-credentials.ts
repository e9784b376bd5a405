import type { KeyPrincipal } from '@patchbay/auth';
import { BUILTIN_CONNECTORS } from '@patchbay/connector-catalog';
import { ConflictError, isUniqueViolation, NotFoundError, ValidationError, type FieldError } from '@patchbay/errors';
import type { PageParams } from '@patchbay/pagination';
import type { SecretBox } from '@patchbay/secrets';
import type { Db } from '../db';
import type { ApplicationCredential } from '../generated/prisma/client';
import { emitAudit } from './audit';
import { isUuid } from './ids';

/** The wire shape: the client secret is write-only, so only whether one is set is shown. */
export interface ApplicationCredentialRecord {
  id: string;
  /** The connector's slug. */
  connector: string;
  external_id: string | null;
  client_id: string;
  has_client_secret: boolean;
  /** Scopes requested instead of the connector's defaults; empty uses the defaults. */
  scopes: string[];
  created_at: string;
  updated_at: string;
}

export interface CreateApplicationCredentialInput {
  connector?: string;
  client_id?: string;
  client_secret?: string | null;
  external_id?: string | null;
  scopes?: string[];
}

export type UpdateApplicationCredentialInput = Omit<CreateApplicationCredentialInput, 'connector'>;

const MAX = 1024;

function toRecord(row: ApplicationCredential): ApplicationCredentialRecord {
  return {
    id: row.id,
    connector: row.connectorSlug,
    external_id: row.externalId,
    client_id: row.clientId,
    has_client_secret: row.clientSecretSealed !== null,
    scopes: row.scopes,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** Sealing context of a client secret: bound to its record so it cannot be moved to another. */
export const clientSecretContext = (id: string) => `application-credential:${id}`;

function checkStrings(input: UpdateApplicationCredentialInput, errors: FieldError[]): void {
  if (input.client_id !== undefined && (input.client_id.trim() === '' || input.client_id.length > MAX)) errors.push({ field: 'body.client_id', message: `must be 1 to ${MAX} characters` });
  if (typeof input.client_secret === 'string' && (input.client_secret === '' || input.client_secret.length > MAX)) errors.push({ field: 'body.client_secret', message: `must be 1 to ${MAX} characters, or null to clear it` });
  if (typeof input.external_id === 'string' && (input.external_id.trim() === '' || input.external_id.length > 255)) errors.push({ field: 'body.external_id', message: 'must be 1 to 255 characters, or null' });
  if (input.scopes !== undefined && input.scopes.some((s) => s.trim() === '' || /\s/.test(s))) errors.push({ field: 'body.scopes', message: 'must be scope names without spaces' });
}

export class ApplicationCredentialService {
  constructor(private readonly db: Db, private readonly box: SecretBox) {}

  async list(principal: KeyPrincipal, filters: { externalId?: string; slug?: string }, page: PageParams) {
    const where = {
      organizationId: principal.organizationId,
      environment: principal.environment,
      ...(filters.externalId !== undefined ? { externalId: filters.externalId } : {}),
      ...(filters.slug !== undefined ? { connectorSlug: filters.slug } : {}),
    };
    const [count, rows] = await Promise.all([
      this.db.applicationCredential.count({ where }),
      this.db.applicationCredential.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip: page.offset, take: page.pageSize }),
    ]);
    return { count, results: rows.map(toRecord) };
  }

  async get(principal: KeyPrincipal, id: string): Promise<ApplicationCredentialRecord> {
    return toRecord(await this.find(principal, id));
  }

  async create(principal: KeyPrincipal, input: CreateApplicationCredentialInput): Promise<ApplicationCredentialRecord> {
    const errors: FieldError[] = [];
    const connector = BUILTIN_CONNECTORS.find((c) => c.slug === input.connector);
    if (!input.connector) errors.push({ field: 'body.connector', message: 'is required: the slug of an OAuth 2.0 connector' });
    else if (!connector) errors.push({ field: 'body.connector', message: `"${input.connector}" is not a built-in connector` });
    else if (!connector.auth_options.some((o) => o.type === 'oauth2')) errors.push({ field: 'body.connector', message: `${connector.name} does not use OAuth 2.0, so it takes no application credential` });
    if (input.client_id === undefined) errors.push({ field: 'body.client_id', message: 'is required' });
    checkStrings(input, errors);
    if (errors.length > 0) throw new ValidationError(errors);
    const externalId = input.external_id?.trim() || null;
    try {
      const row = await this.db.$transaction(async (tx) => {
        const created = await tx.applicationCredential.create({
          data: {
            organizationId: principal.organizationId,
            environment: principal.environment,
            connectorSlug: input.connector as string,
            externalId,
            externalKey: externalId ?? '',
            clientId: (input.client_id as string).trim(),
            scopes: input.scopes ?? [],
          },
        });
        const sealed = input.client_secret ? this.box.seal(input.client_secret, clientSecretContext(created.id)) : null;
        const withSecret = sealed ? await tx.applicationCredential.update({ where: { id: created.id }, data: { clientSecretSealed: sealed } }) : created;
        await emitAudit(tx, principal, { eventType: 'application_credential.created', resourceType: 'application_credential', resourceId: created.id, details: { connector: created.connectorSlug, external_id: externalId } });
        return withSecret;
      });
      return toRecord(row);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new ConflictError(`An application credential for ${input.connector as string} ${externalId ? `with external_id "${externalId}" ` : 'without external_id '}already exists; update it instead, or give another external_id.`);
      }
      throw err;
    }
  }

  /** Omitted fields stay; null clears client_secret or external_id. */
  async update(principal: KeyPrincipal, id: string, input: UpdateApplicationCredentialInput): Promise<ApplicationCredentialRecord> {
    const current = await this.find(principal, id);
    const errors: FieldError[] = [];
    checkStrings(input, errors);
    if (errors.length > 0) throw new ValidationError(errors);
    const data: Record<string, unknown> = {};
    if (input.client_id !== undefined) data.clientId = input.client_id.trim();
    if (input.scopes !== undefined) data.scopes = input.scopes;
    if (input.client_secret === null) data.clientSecretSealed = null;
    else if (input.client_secret !== undefined) data.clientSecretSealed = this.box.seal(input.client_secret, clientSecretContext(id));
    if (input.external_id !== undefined) {
      const externalId = input.external_id?.trim() || null;
      data.externalId = externalId;
      data.externalKey = externalId ?? '';
    }
    try {
      const row = await this.db.$transaction(async (tx) => {
        const updated = await tx.applicationCredential.update({ where: { id: current.id }, data });
        await emitAudit(tx, principal, { eventType: 'application_credential.updated', resourceType: 'application_credential', resourceId: id, details: { changed: Object.keys(input) } });
        return updated;
      });
      return toRecord(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`Another application credential for ${current.connectorSlug} already uses that external_id.`);
      throw err;
    }
  }

  /** Deletes the OAuth app and every user credential obtained through it. */
  async delete(principal: KeyPrincipal, id: string): Promise<{ deletedCredentials: number; connectorSlug: string }> {
    const current = await this.find(principal, id);
    return this.db.$transaction(async (tx) => {
      const { count } = await tx.connection.deleteMany({ where: { applicationCredentialId: current.id, organizationId: principal.organizationId, environment: principal.environment } });
      await tx.applicationCredential.delete({ where: { id: current.id } });
      await emitAudit(tx, principal, { eventType: 'application_credential.deleted', resourceType: 'application_credential', resourceId: id, details: { connector: current.connectorSlug, deleted_credentials: count } });
      return { deletedCredentials: count, connectorSlug: current.connectorSlug };
    });
  }

  private async find(principal: KeyPrincipal, id: string): Promise<ApplicationCredential> {
    const row = isUuid(id) ? await this.db.applicationCredential.findFirst({ where: { id, organizationId: principal.organizationId, environment: principal.environment } }) : null;
    if (!row) throw new NotFoundError('Application credential not found.');
    return row;
  }
}
