import { cpus, loadavg, release, totalmem, type } from 'node:os';

/** Figures go to stdout; progress goes to stderr, so `pnpm bench x > figures.txt` keeps only figures. */
export const print = (line = '') => process.stdout.write(`${line}\n`);
export const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

export function machineDescription(): string {
  const list = cpus();
  const model = list[0]?.model.replace(/\s+/g, ' ').trim() ?? 'unknown CPU';
  const memoryGb = (totalmem() / 1024 ** 3).toFixed(1);
  return `${list.length} CPU${list.length === 1 ? '' : 's'} (${model}), ${memoryGb} GB, ${type()} ${release()}, node ${process.version}`;
}

export function formatInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function formatSigned(n: number): string {
  const rounded = Math.round(n);
  return `${rounded >= 0 ? '+' : '-'}${Math.abs(rounded).toLocaleString('en-US')}`;
}

export type Align = 'left' | 'right';

/** A plain-text table: the first column left-aligned, the others as told (right by default, for numbers). */
export function table(headers: string[], rows: string[][], align: Align[] = []): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const cell = (text: string, i: number) => {
    const side = align[i] ?? (i === 0 ? 'left' : 'right');
    return side === 'left' ? text.padEnd(widths[i]!) : text.padStart(widths[i]!);
  };
  const line = (cells: string[]) => `  ${cells.map(cell).join('  ')}`.trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/**
 * The 1-minute load average against the CPU count: other work on the machine (builds, tests) competes
 * with the services and the load generator, and moves the figures, p99 most of all.
 */
export function machineLoad(): { loadAverage: number; busy: boolean; text: string } {
  const loadAverage = loadavg()[0] ?? 0;
  const busy = loadAverage > cpus().length * 0.25;
  return { loadAverage, busy, text: `${loadAverage.toFixed(2)} on ${cpus().length} CPUs${busy ? ' (busy: other processes compete, figures vary from run to run)' : ''}` };
}
