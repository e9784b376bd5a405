import { PrismaPg } from '@prisma/adapter-pg';

/**
 * The driver adapter each app hands to its generated PrismaClient: a `pg` pool on the app's
 * own schema. Unqualified names in migrations and queries resolve to that schema.
 */
export function pgAdapter(databaseUrl: string, schema: string, poolSize = 10): PrismaPg {
  return new PrismaPg({ connectionString: databaseUrl, max: poolSize, options: `-c search_path="${schema}"` }, { schema });
}
