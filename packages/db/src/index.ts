export { applyMigrations } from './migrate';
export type { ApplyMigrationsOptions, ApplyMigrationsResult, MigrationLogger } from './migrate';
export { canConnect, ensureDatabase } from './database';
export { pgAdapter } from './adapter';
