import { commandDelta, cpuDelta, parseCommandStats, parseProcStatCpuUs, pgDelta, processCpuUs } from './capacity-counters';

describe('capacity bench counters', () => {
  it('reads utime + stime from a /proc stat line whose command name holds spaces and parentheses', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    const line = '4242 (node (worker) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 11 0 1234 0 0';
    expect(parseProcStatCpuUs(line)).toBe((250 + 75) * 10_000);
  });

  it('reads this process from /proc and nothing for a pid that does not exist', () => {
    expect(processCpuUs(process.pid)).toBeGreaterThan(0);
    expect(processCpuUs(2 ** 30)).toBeNull();
  });

  it('counts the commands run between two INFO commandstats readings, new commands included', () => {
    const before = parseCommandStats('# Commandstats\r\ncmdstat_get:calls=10,usec=5,usec_per_call=0.5,rejected_calls=0,failed_calls=0\r\ncmdstat_evalsha:calls=3,usec=30\r\n');
    const after = parseCommandStats('# Commandstats\r\ncmdstat_get:calls=15,usec=9\r\ncmdstat_evalsha:calls=3,usec=30\r\ncmdstat_xadd:calls=2,usec=4\r\n');
    expect(before.get('get')).toBe(10);
    expect([...commandDelta(before, after)]).toEqual([
      ['get', 5],
      ['xadd', 2],
    ]);
  });

  it('counts a process that appeared between two snapshots in full and sums a name\'s processes', () => {
    const before = new Map([['postgres', new Map([[1, 100]])]]);
    const after = new Map([['postgres', new Map([[1, 160], [2, 40]])]]);
    expect(cpuDelta(before, after).get('postgres')).toBe(100);
  });

  it('subtracts pg_stat_database readings field by field', () => {
    const zero = { xactCommit: 0, xactRollback: 0, tupReturned: 0, tupFetched: 0, tupInserted: 0, tupUpdated: 0, tupDeleted: 0 };
    expect(pgDelta({ ...zero, xactCommit: 5, tupInserted: 2 }, { ...zero, xactCommit: 12, tupInserted: 9, tupUpdated: 1 })).toEqual({ ...zero, xactCommit: 7, tupInserted: 7, tupUpdated: 1 });
  });
});
