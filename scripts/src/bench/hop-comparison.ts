import { medianAdded, type TargetResult } from './measure';
import { formatInt, formatSigned } from './report';

/** Issue 24: the edge router's hop against a bare proxy's in the same place, at one connection. */
export const TARGET_EDGE_OVER_BARE_P50_US = 300;
export const TARGET_EDGE_CPU_RATIO = 1.5;

export interface HopComparison {
  /** The edge's path minus the bare proxy's at p50, round by round (both in front of the same service), median. */
  addedP50Us: number;
  edgeCpuUs: number | null;
  bareCpuUs: number | null;
  /** Edge CPU per request over the bare proxy's; null when either could not be read. */
  cpuRatio: number | null;
  latencyMet: boolean;
  cpuMet: boolean;
}

/**
 * The edge router's own hop against a do-nothing keep-alive proxy's, both in front of the same service
 * and measured in interleaved rounds: what the edge's work (routing, path checks, header rules, request
 * ids, trace context) adds to a bare Node hop, in latency and in the proxy process's CPU per request.
 */
export function compareHops(edge: TargetResult, bare: TargetResult, edgeService: string, bareService: string): HopComparison {
  const addedP50Us = medianAdded(edge, bare, (r) => r.p50Us);
  const edgeCpuUs = edge.cpuUsPerRequest[edgeService] ?? null;
  const bareCpuUs = bare.cpuUsPerRequest[bareService] ?? null;
  const cpuRatio = edgeCpuUs === null || bareCpuUs === null || bareCpuUs <= 0 ? null : edgeCpuUs / bareCpuUs;
  return { addedP50Us, edgeCpuUs, bareCpuUs, cpuRatio, latencyMet: addedP50Us <= TARGET_EDGE_OVER_BARE_P50_US, cpuMet: cpuRatio !== null && cpuRatio <= TARGET_EDGE_CPU_RATIO };
}

/** One line for a report: the edge's hop beside the bare proxy's, with the targets. */
export function describeHops(c: HopComparison, withLatencyTarget: boolean): string {
  const cpu = c.cpuRatio === null ? 'n/a' : c.cpuRatio.toFixed(2);
  const latency = `edge p50 ${formatSigned(c.addedP50Us)} µs over the bare proxy's${withLatencyTarget ? ` (target <= +${formatInt(TARGET_EDGE_OVER_BARE_P50_US)}: ${c.latencyMet ? 'PASS' : 'MISS'})` : ''}`;
  const cpuText = `CPU µs/req edge ${c.edgeCpuUs === null ? 'n/a' : formatInt(c.edgeCpuUs)} / bare ${c.bareCpuUs === null ? 'n/a' : formatInt(c.bareCpuUs)} = ${cpu} (target <= ${TARGET_EDGE_CPU_RATIO.toFixed(1)}: ${c.cpuMet ? 'PASS' : 'MISS'})`;
  return `${latency}; ${cpuText}`;
}
