export { applyMigrations, migrateOnStart } from './migrate';
export type { ApplyMigrationsOptions, ApplyMigrationsResult, MigrationLogger } from './migrate';
export { canConnect, ensureDatabase } from './database';
export { pgAdapter, pgPool } from './adapter';
export { diffMigrationsToSchema, generateMigration } from './diff';
export type { DiffMigrationsOptions, DiffMigrationsResult, GenerateMigrationOptions, GenerateMigrationResult, ShadowKind } from './diff';
export { retryOnTransactionConflict } from './transaction-retry';
export type { TransactionRetryOptions } from './transaction-retry';
