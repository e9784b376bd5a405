import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The parts of V8's .cpuprofile format (written by `node --cpu-prof`) that the summary reads. */
interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  /** Microseconds on the monotonic clock, the same one process.hrtime reads in every process on the machine. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  /** Microseconds. */
  timeUs: number;
  /** Share of the busy (non-idle) time. */
  share: number;
}

/** A span of the monotonic clock in microseconds, as process.hrtime.bigint() / 1000n gives it. */
export interface TimeWindow {
  startUs: number;
  endUs: number;
}

/** One frame of a sampled stack, as a grouping rule sees it. */
export interface StackFrame {
  functionName: string;
  /** Where the code lives, as the origin summary names it: a package, node:<module>, a path in the repository. */
  origin: string;
  /** The file: inside its package (`@modelcontextprotocol/sdk/dist/cjs/client/index.js`), or in the repository; '' for V8's own frames. */
  file: string;
}

/**
 * Names the group a sample belongs to (a stage of a request, say) from its stack, innermost frame
 * first. Only the synchronous stack is there: code resumed after an await shows its own frames.
 */
export type StackClassifier = (stack: readonly StackFrame[]) => string;

export interface ProfileGroup extends ProfileEntry {
  /** The functions with the most self time in the group. */
  functions: ProfileEntry[];
}

export interface ProfileSummary {
  file: string;
  /** Whether only samples inside the given windows were counted (start-up and warm-up left out). */
  windowed: boolean;
  totalUs: number;
  busyUs: number;
  /** Self time by where the code lives: a package, a node core module, our own files, GC. */
  selfByOrigin: ProfileEntry[];
  selfByFunction: ProfileEntry[];
  /** Time spent in a function or anything it called, for our own code only (apps/ and packages/). */
  inclusiveOwnCode: ProfileEntry[];
  /** Self time by the groups the classifier named (empty without one), every group, largest first. */
  selfByGroup: ProfileGroup[];
}

/** The newest .cpuprofile in a folder (`node --cpu-prof --cpu-prof-dir=<dir>` writes one when the process exits). */
export function newestProfile(dir: string): string | null {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
  const last = files[files.length - 1];
  return last === undefined ? null : path.join(dir, last);
}

const SPECIAL = new Set(['(garbage collector)', '(idle)', '(program)', '(root)']);

function origin(node: CpuProfileNode, repoRoot: string): string {
  const { functionName, url } = node.callFrame;
  if (url === '' && SPECIAL.has(functionName)) return functionName;
  if (url === '') return '(native / V8 builtins)';
  if (url.startsWith('node:')) {
    const parts = url.slice('node:'.length).split('/');
    return `node:${parts[0] === 'internal' ? parts.slice(0, 2).join('/') : parts[0]}`;
  }
  const file = url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = file.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? file);
  }
  if (file.startsWith(repoRoot)) return path.relative(repoRoot, file);
  return file;
}

function fileOf(node: CpuProfileNode, repoRoot: string): string {
  const file = node.callFrame.url.replace(/^file:\/\//, '');
  const nm = file.lastIndexOf('/node_modules/');
  if (nm !== -1) return file.slice(nm + '/node_modules/'.length);
  return file.startsWith(repoRoot) ? path.relative(repoRoot, file) : file;
}

function isOwnCode(node: CpuProfileNode, repoRoot: string): boolean {
  const file = node.callFrame.url.replace(/^file:\/\//, '');
  return file.startsWith(repoRoot) && !file.includes('/node_modules/');
}

function functionLabel(node: CpuProfileNode, repoRoot: string): string {
  const { functionName, lineNumber } = node.callFrame;
  const where = origin(node, repoRoot);
  if (SPECIAL.has(functionName) && node.callFrame.url === '') return functionName;
  return `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
}

function top(map: Map<string, number>, busyUs: number, limit: number): ProfileEntry[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, timeUs]) => ({ name, timeUs, share: busyUs > 0 ? timeUs / busyUs : 0 }));
}

/** Self and inclusive time from a .cpuprofile; with windows, only the samples taken inside them. */
export function summarizeCpuProfile(
  file: string,
  repoRoot: string,
  options: { windows?: TimeWindow[]; limit?: number; groupBy?: StackClassifier; functionsPerGroup?: number } = {},
): ProfileSummary {
  const limit = options.limit ?? 15;
  const windows = options.windows ?? [];
  const inWindow = (t: number) => windows.length === 0 || windows.some((w) => t >= w.startUs && t < w.endUs);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const selfUs = new Map<number, number>();
  let totalUs = 0;
  // timeDeltas[i] is the time since the previous sample: the time up to the next sample belongs to this one.
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0;
    const delta = profile.timeDeltas[i + 1] ?? 0;
    if (!inWindow(t)) continue;
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
    totalUs += delta;
  }

  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const byGroup = new Map<string, Map<string, number>>();
  const stackOf = (id: number): StackFrame[] => {
    const stack: StackFrame[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur);
      if (frame) stack.push({ functionName: frame.callFrame.functionName, origin: origin(frame, repoRoot), file: fileOf(frame, repoRoot) });
    }
    return stack;
  };
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    if (node.callFrame.functionName === '(idle)' && node.callFrame.url === '') {
      idleUs += us;
      continue;
    }
    const o = origin(node, repoRoot);
    byOrigin.set(o, (byOrigin.get(o) ?? 0) + us);
    const f = functionLabel(node, repoRoot);
    byFunction.set(f, (byFunction.get(f) ?? 0) + us);
    if (options.groupBy) {
      const group = options.groupBy(stackOf(id));
      let functions = byGroup.get(group);
      if (!functions) byGroup.set(group, (functions = new Map()));
      functions.set(f, (functions.get(f) ?? 0) + us);
    }
    // Each own function on the stack once, so recursion does not count twice.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur);
      if (!frame || !isOwnCode(frame, repoRoot)) continue;
      const label = functionLabel(frame, repoRoot);
      if (seen.has(label)) continue;
      seen.add(label);
      inclusive.set(label, (inclusive.get(label) ?? 0) + us);
    }
  }
  const busyUs = totalUs - idleUs;
  const selfByGroup: ProfileGroup[] = [...byGroup.entries()]
    .map(([name, functions]) => {
      const timeUs = [...functions.values()].reduce((sum, us) => sum + us, 0);
      return { name, timeUs, share: busyUs > 0 ? timeUs / busyUs : 0, functions: top(functions, busyUs, options.functionsPerGroup ?? 5) };
    })
    .sort((a, b) => b.timeUs - a.timeUs);
  return {
    file,
    windowed: windows.length > 0,
    totalUs,
    busyUs,
    selfByOrigin: top(byOrigin, busyUs, limit),
    selfByFunction: top(byFunction, busyUs, limit),
    inclusiveOwnCode: top(inclusive, busyUs, limit),
    selfByGroup,
  };
}
