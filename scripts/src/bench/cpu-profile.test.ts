import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newestProfile, summarizeCpuProfile } from './cpu-profile';

const ROOT = '/repo';

describe('CPU profile summary', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cpu-profile-test-'));
    // root -> handler (our code) -> writev (native); plus idle and a pnpm-installed package.
    const profile = {
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4, 5] },
        { id: 2, callFrame: { functionName: 'handler', url: `file://${ROOT}/apps/edge-router/dist/server.js`, lineNumber: 45 }, children: [3] },
        { id: 3, callFrame: { functionName: 'writev', url: '', lineNumber: -1 } },
        { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
        { id: 5, callFrame: { functionName: 'write', url: `file://${ROOT}/node_modules/.pnpm/pino@9.0.0/node_modules/pino/lib/proto.js`, lineNumber: 9 } },
      ],
      startTime: 1_000,
      // Samples at 1010, 1020, 1030, 1040, 1050; each owns the time up to the next one.
      samples: [3, 2, 4, 5, 3],
      timeDeltas: [10, 10, 10, 10, 10],
    };
    writeFileSync(path.join(dir, 'CPU.1.cpuprofile'), JSON.stringify(profile));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('splits busy time by origin and counts callees in our own functions', () => {
    const file = newestProfile(dir)!;
    const summary = summarizeCpuProfile(file, ROOT);
    expect(summary.totalUs).toBe(40);
    expect(summary.busyUs).toBe(30);
    expect(summary.selfByOrigin.map((e) => [e.name, e.timeUs])).toEqual([
      ['(native / V8 builtins)', 10],
      ['apps/edge-router/dist/server.js', 10],
      ['pino', 10],
    ]);
    expect(summary.inclusiveOwnCode).toEqual([{ name: 'handler  apps/edge-router/dist/server.js:46', timeUs: 20, share: 20 / 30 }]);
  });

  it('groups self time as the classifier names each stack, innermost frame first, with the top functions of each group', () => {
    const stacks: string[][] = [];
    const summary = summarizeCpuProfile(newestProfile(dir)!, ROOT, {
      groupBy: (stack) => {
        stacks.push(stack.map((f) => `${f.functionName}@${f.origin}@${f.file}`));
        return stack.some((f) => f.origin === 'apps/edge-router/dist/server.js') ? 'handler' : 'elsewhere';
      },
    });
    expect(stacks).toContainEqual(['writev@(native / V8 builtins)@', 'handler@apps/edge-router/dist/server.js@apps/edge-router/dist/server.js', '(root)@(root)@']);
    expect(stacks).toContainEqual(['write@pino@pino/lib/proto.js', '(root)@(root)@']);
    expect(summary.selfByGroup.map((g) => [g.name, g.timeUs])).toEqual([
      ['handler', 20],
      ['elsewhere', 10],
    ]);
    expect(summary.selfByGroup[0]!.functions.map((f) => f.name)).toEqual(['writev  (native / V8 builtins):0', 'handler  apps/edge-router/dist/server.js:46']);
    // Idle time belongs to no group.
    expect(summarizeCpuProfile(newestProfile(dir)!, ROOT).selfByGroup).toEqual([]);
  });

  it('counts only the samples inside the given windows', () => {
    const summary = summarizeCpuProfile(newestProfile(dir)!, ROOT, { windows: [{ startUs: 1_000, endUs: 1_025 }] });
    expect(summary.windowed).toBe(true);
    expect(summary.totalUs).toBe(20);
    expect(summary.busyUs).toBe(20);
  });
});
