import { secretBoxFromEnv } from '@patchbay/secrets';
import { ConfigError, loadEnv } from '@patchbay/service-kit';
import { z } from 'zod';
import { createPrisma } from '../db';
import { rekeyAll } from '../domain/rekey';

/**
 * `node dist/cli/rekey.js` (pnpm rekey): after adding a new key to PATCHBAY_ENCRYPTION_KEYS and making
 * it PATCHBAY_ENCRYPTION_ACTIVE_KEY, re-seals every secret at rest still sealed with an older key.
 * Prints counts per column as JSON lines; exits 1 if any value could not be opened.
 */
const schema = z.object({
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/patchbay'),
  PATCHBAY_ENCRYPTION_KEYS: z.string().min(1, 'is required: every key still in use, "<id>:<base64 of 32 bytes>,..."'),
  PATCHBAY_ENCRYPTION_ACTIVE_KEY: z.string().optional(),
  REKEY_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
});

async function main(): Promise<number> {
  const env = loadEnv('rekey', schema);
  const box = secretBoxFromEnv(process.env);
  const db = createPrisma(env.DATABASE_URL, 2);
  try {
    const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
    print({ event: 'start', active_key: box.activeKeyId, batch_size: env.REKEY_BATCH_SIZE });
    const results = await rekeyAll(db, box, {
      batchSize: env.REKEY_BATCH_SIZE,
      onBatch: (c) => print({ event: 'progress', column: c.column, found: c.found, resealed: c.resealed }),
    });
    let failed = 0;
    for (const c of results) {
      failed += c.failed.length;
      print({ event: 'done', column: c.column, found: c.found, resealed: c.resealed, changed_meanwhile: c.changed, failed: c.failed.length, failed_ids: c.failed });
    }
    print({ event: 'summary', resealed: results.reduce((n, c) => n + c.resealed, 0), failed });
    return failed > 0 ? 1 : 0;
  } finally {
    await db.$disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(err instanceof ConfigError ? `${err.message}\n` : `rekey failed: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
