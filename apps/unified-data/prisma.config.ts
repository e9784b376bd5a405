import path from 'node:path';
import { defineConfig } from 'prisma/config';

// Prisma's CLI wants its native schema engine even for `generate`, and it cannot be downloaded here.
// generate/validate/format never run it, so any existing file satisfies the check.
if (!process.env.PRISMA_SCHEMA_ENGINE_BINARY) process.env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;

export default defineConfig({
  schema: path.join(__dirname, 'prisma', 'schema.prisma'),
  migrations: { path: path.join(__dirname, 'prisma', 'migrations') },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay' },
});
