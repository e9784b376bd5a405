import { cp, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A temporary copy of a service's migrations folder holding only the migrations that sort before
 * `firstLeftOut`: apply it to a private schema to get the database as it was just before that
 * migration, fill it with data, then apply the real folder to run the migration on that data.
 */
export async function migrationsBefore(migrationsDir: string, firstLeftOut: string): Promise<string> {
  const entries = await readdir(migrationsDir, { withFileTypes: true });
  const names = entries.map((e) => e.name);
  if (!names.includes(firstLeftOut)) throw new Error(`no migration ${firstLeftOut} in ${migrationsDir}`);
  const copy = await mkdtemp(path.join(tmpdir(), 'migrations-before-'));
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name < firstLeftOut) await cp(path.join(migrationsDir, entry.name), path.join(copy, entry.name), { recursive: true });
    else if (entry.isFile()) await cp(path.join(migrationsDir, entry.name), path.join(copy, entry.name));
  }
  return copy;
}
