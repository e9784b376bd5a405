import { retryOnTransactionConflict } from './transaction-retry';

/** The shapes the pg driver adapter and Prisma give a transaction PostgreSQL aborted. */
const deadlock = () => Object.assign(new Error('deadlock detected'), { cause: { kind: 'postgres', code: '40P01', severity: 'ERROR' } });
const prismaConflict = () => Object.assign(new Error('Transaction failed due to a write conflict or a deadlock. Please retry your transaction'), { code: 'P2034' });
const adapterConflict = () => Object.assign(new Error('write conflict'), { meta: { driverAdapterError: { cause: { kind: 'TransactionWriteConflict' } } } });

function failing(errors: Array<() => Error>): { run: () => Promise<string>; runs: () => number } {
  let runs = 0;
  return {
    run: async () => {
      const next = errors[runs];
      runs += 1;
      if (next) throw next();
      return 'committed';
    },
    runs: () => runs,
  };
}

describe('retryOnTransactionConflict', () => {
  it('runs a transaction PostgreSQL aborted for a deadlock or a serialization conflict again, until it commits', async () => {
    for (const conflict of [deadlock, prismaConflict, adapterConflict]) {
      const tx = failing([conflict, conflict]);
      await expect(retryOnTransactionConflict(tx.run, { backoffMs: 1 })).resolves.toBe('committed');
      expect(tx.runs()).toBe(3);
    }
  });

  it('throws the conflict of the last run when every run conflicted', async () => {
    const tx = failing([deadlock, deadlock, deadlock, deadlock]);
    await expect(retryOnTransactionConflict(tx.run, { attempts: 3, backoffMs: 1 })).rejects.toThrow('deadlock detected');
    expect(tx.runs()).toBe(3);
  });

  it('never runs again after any other error: a unique violation, a lost connection, a bug', async () => {
    const others = [
      () => Object.assign(new Error('duplicate key'), { cause: { kind: 'postgres', code: '23505', severity: 'ERROR' } }),
      () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      () => new TypeError('x is undefined'),
    ];
    for (const other of others) {
      const tx = failing([other]);
      await expect(retryOnTransactionConflict(tx.run, { backoffMs: 1 })).rejects.toThrow();
      expect(tx.runs()).toBe(1);
    }
  });
});
