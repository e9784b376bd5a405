import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseWrkOutput, parseWrkTime, percentile, wrkScript } from './load';

const WRK_OUTPUT = `Running 1s test @ http://127.0.0.1:45999/
  1 threads and 4 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   154.54us  485.34us   8.16ms   95.04%
    Req/Sec    67.07k    20.42k   78.48k    80.00%
  Latency Distribution
     50%   48.00us
     75%   51.00us
     90%  136.00us
     99%    2.66ms
  66637 requests in 1.00s, 7.86MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 6663
Requests/sec:  66611.55
Transfer/sec:      7.86MB
`;

describe('wrk output', () => {
  it('reads throughput, p50 and p99 in microseconds, failed responses and socket errors', () => {
    expect(parseWrkOutput(WRK_OUTPUT)).toEqual({
      requests: 66637,
      requestsPerSecond: 66611.55,
      p50Us: 48,
      p99Us: 2660,
      non2xx: 6663,
      socketErrors: 5,
    });
  });

  it('converts every unit wrk prints to microseconds', () => {
    expect(parseWrkTime('812.00us')).toBe(812);
    expect(parseWrkTime('1.25ms')).toBe(1250);
    expect(parseWrkTime('2.00s')).toBe(2_000_000);
  });

  it('refuses output without a latency distribution rather than reporting zeros', () => {
    expect(() => parseWrkOutput(WRK_OUTPUT.replace(/Latency Distribution[\s\S]*?99%.*\n/, ''))).toThrow(/--latency/);
  });
});

describe('wrk request script', () => {
  it('sets the method and puts the body in a long string that the body cannot close', () => {
    expect(wrkScript('POST', '{"a":1}')).toBe('wrk.method = "POST"\nwrk.body = [[\n{"a":1}]]\n');
    expect(wrkScript('POST', '{"a":[[1]]}')).toBe('wrk.method = "POST"\nwrk.body = [=[\n{"a":[[1]]}]=]\n');
    // A body ending in "]" would close "]]" one character early.
    expect(wrkScript('POST', '[1]')).toBe('wrk.method = "POST"\nwrk.body = [=[\n[1]]=]\n');
    expect(wrkScript('DELETE', undefined)).toBe('wrk.method = "DELETE"\n');
  });
});

describe('percentile', () => {
  it('takes the nearest rank of an ascending list', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBe(0);
  });
});

describe('raw latencies (wrk done callback)', () => {
  it('reads the raw percentiles the done callback prints', () => {
    expect(parseWrkOutput(`${WRK_OUTPUT}RAW_LATENCY_US count=66637 p50=47 p99=1210\n`)).toMatchObject({ p50Us: 48, p99Us: 2660, rawP50Us: 47, rawP99Us: 1210 });
  });

  const hasWrk = spawnSync('wrk', ['--version']).error === undefined;
  (hasWrk ? it : it.skip)("undoes wrk's coordinated-omission correction exactly: the raw counts add up to the requests again", async () => {
    // One answer in 50 waits 15 ms: wrk's correction adds made-up samples below each of them.
    let n = 0;
    const server = http.createServer((_req, res) => {
      n += 1;
      if (n % 50 === 0) setTimeout(() => res.end('ok'), 15);
      else res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dir = mkdtempSync(path.join(tmpdir(), 'wrk-raw-test-'));
    try {
      const script = path.join(dir, 'raw.lua');
      writeFileSync(script, wrkScript('GET', undefined, 4));
      const { port } = server.address() as AddressInfo;
      const { stdout } = await promisify(execFile)('wrk', ['--latency', '-t', '1', '-c', '4', '-d', '1s', '-s', script, `http://127.0.0.1:${port}/`]);
      const requests = Number(/(\d+) requests in/.exec(stdout)?.[1]);
      const raw = /RAW_LATENCY_US count=(\d+) p50=(\d+) p99=(\d+)/.exec(stdout);
      expect(raw).not.toBeNull();
      expect(Number(raw![1])).toBe(requests);
      // The correction only ever adds samples: raw percentiles are never above wrk's.
      const result = parseWrkOutput(stdout);
      expect(result.rawP50Us!).toBeLessThanOrEqual(result.p50Us);
      expect(result.rawP99Us!).toBeLessThanOrEqual(result.p99Us);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
