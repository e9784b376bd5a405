import path from 'node:path';
import { defineConfig } from 'prisma/config';

// This package ships no Prisma client: the schema only generates the client its tests use to prove
// that addToOutbox and OutboxRelay work with a real Prisma client and transaction.
// Prisma's CLI wants its native schema engine even for `generate`, which never runs it and which
// cannot be downloaded here, so any existing file satisfies the check.
if (!process.env.PRISMA_SCHEMA_ENGINE_BINARY) process.env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;

export default defineConfig({
  schema: path.join(__dirname, 'prisma', 'schema.prisma'),
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/patchbay_test' },
});
