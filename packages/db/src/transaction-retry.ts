import { isTransactionConflict } from '@patchbay/errors';

export interface TransactionRetryOptions {
  /** Runs in all, the first included. Default 3. */
  attempts?: number;
  /** Wait before the second run; doubled for each run after it, with up to half again at random. Default 25 ms. */
  backoffMs?: number;
}

/**
 * Runs `transaction` (all of it: a `$transaction` call, not a statement inside one) again when
 * PostgreSQL aborted it to break a deadlock or a serialization conflict, as PostgreSQL's manual
 * advises for both. The transaction it collided with has finished or been aborted by then, so the
 * next run normally goes through. Any other error, or a conflict on the last run, is thrown as is
 * (a conflict left over is a 503 with Retry-After from the error middleware).
 */
export async function retryOnTransactionConflict<T>(transaction: () => Promise<T>, options: TransactionRetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 25;
  for (let run = 1; ; run += 1) {
    try {
      return await transaction();
    } catch (err) {
      if (run >= attempts || !isTransactionConflict(err)) throw err;
      const wait = backoffMs * 2 ** (run - 1);
      await new Promise((resolve) => setTimeout(resolve, wait + Math.random() * wait * 0.5));
    }
  }
}
