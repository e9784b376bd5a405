import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { KeyPrincipal } from '@patchbay/auth';
import type { MeterDecision } from '@patchbay/metering';
import type { ToolCallStatus } from '@patchbay/queues';
import { ScanError, type BlockedBy, type Detection, type ScanDirection } from '@patchbay/security-scanner';
import type { Logger } from '@patchbay/service-kit';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallContext, LiveCall, ToolExecutor } from './execute';
import type { PackTool, PackTools } from './registry-client';
import type { RuleSetCache } from './rule-set-cache';
import type { ToolCallRecorder } from './tool-call-records';

export interface ScannedCallDeps {
  executor: ToolExecutor;
  rules: RuleSetCache;
  recorder: ToolCallRecorder;
  logger: Logger;
}

export interface ScannedCallContext extends CallContext {
  /** The meter's decision for this call (its credit was counted before the call ran). */
  decision: MeterDecision | undefined;
  /** The request's id, for the lines logged about the call. */
  requestId?: string;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The tool result of a call a block rule stopped: says a security rule fired and names it, never the matched value. */
export function blockedResult(by: BlockedBy, direction: ScanDirection): CallToolResult {
  const what = direction === 'inbound' ? 'the tool was not called' : "the tool's result was withheld";
  return {
    content: [{ type: 'text', text: `Blocked by security rule "${by.rule_name}" (${by.kind}, rule ${by.rule_id}): ${what}. The call still counts one credit; change the ${direction === 'inbound' ? 'arguments' : 'request'} or ask an administrator about the rule.` }],
    structuredContent: { error: 'security_rule_blocked', rule_id: by.rule_id, rule_name: by.rule_name, kind: by.kind, direction },
    isError: true,
  };
}

interface Ending {
  result: CallToolResult;
  status: ToolCallStatus;
  errorCode: string | null;
  /** The arguments as the tool received them (after the inbound rules), for the record; undefined when it never ran. */
  sentArguments?: unknown;
}

/** A record keeps at most this much of a call's arguments and of its result (JSON text), so one huge answer cannot bloat the table. */
export const RECORDED_PAYLOAD_MAX_CHARS = 16_384;

/**
 * What a record keeps of a payload: the value itself when its JSON is small enough, else its JSON
 * text's beginning, marked as cut. It is the value after scanning, so redaction markers stay in it.
 */
export function recordedPayload(value: unknown): unknown {
  if (value === undefined) return null;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    return { patchbay_truncated: true, reason: 'not representable as JSON' };
  }
  if (text === undefined) return null;
  if (text.length <= RECORDED_PAYLOAD_MAX_CHARS) return value;
  return { patchbay_truncated: true, original_chars: text.length, json_prefix: text.slice(0, RECORDED_PAYLOAD_MAX_CHARS) };
}

/**
 * One tools/call through security scanning: inbound rules scan the arguments before the tool
 * runs, outbound rules scan its result before the model sees it (redacting or blocking), and the
 * call's record (status, duration, credit, detections without values) leaves over the queue.
 */
export async function callWithScanning(
  deps: ScannedCallDeps,
  principal: KeyPrincipal,
  pack: PackTools,
  tool: PackTool | undefined,
  calledName: string,
  args: unknown,
  context: ScannedCallContext,
): Promise<Ending> {
  const started = performance.now();
  const detections: Detection[] = [];
  let ending: Ending;
  try {
    ending = tool ? await scannedCall(deps, principal, pack, tool, args, context, detections) : { result: errorResult(''), status: 'error', errorCode: 'unknown_tool' };
  } catch (err) {
    ending = { result: errorResult(''), status: 'error', errorCode: 'internal_error' };
    record(deps, principal, pack, tool, calledName, context, ending, detections, started);
    throw err;
  }
  record(deps, principal, pack, tool, calledName, context, ending, detections, started);
  return ending;
}

async function scannedCall(
  deps: ScannedCallDeps,
  principal: KeyPrincipal,
  pack: PackTools,
  tool: PackTool,
  args: unknown,
  context: ScannedCallContext,
  detections: Detection[],
): Promise<Ending> {
  const scanner = await deps.rules.scannerFor(principal.organizationId, principal.environment, pack.tool_pack.id);
  try {
    let input = args;
    let resume = context.resume;
    if (scanner) {
      const inbound = scanner.scan(args, 'inbound');
      detections.push(...inbound.detections);
      if (inbound.blocked) return { result: blockedResult(inbound.blocked, 'inbound'), status: 'blocked', errorCode: 'security_rule_blocked' };
      input = inbound.value;
      // A 2026-07-28 agent's answers to a server's input_required reach the tool: inbound, like its answers to relayed requests.
      if (resume) {
        const answers = scanner.scan(resume.inputResponses, 'inbound');
        detections.push(...answers.detections);
        if (answers.blocked) return { result: blockedResult(answers.blocked, 'inbound'), status: 'blocked', errorCode: 'security_rule_blocked' };
        resume = { ...resume, inputResponses: answers.value as Record<string, unknown> };
      }
    }
    const live = scanner && context.live ? scannedLiveCall(context.live, scanner, detections) : context.live;
    const outcome = await deps.executor.call(principal, pack, tool, input, live === context.live && resume === context.resume ? context : { ...context, live, resume });
    if (!scanner) return { result: outcome.result, status: outcome.status, errorCode: outcome.errorCode, sentArguments: input };
    const outbound = scanner.scan(outcome.result, 'outbound');
    detections.push(...outbound.detections);
    if (outbound.blocked) return { result: blockedResult(outbound.blocked, 'outbound'), status: 'blocked', errorCode: 'security_rule_blocked', sentArguments: input };
    return { result: outbound.value as CallToolResult, status: outcome.status, errorCode: outcome.errorCode, sentArguments: input };
  } catch (err) {
    // A value the scanner cannot read, or a custom pattern exhausting the regex engine: fail closed.
    if (!(err instanceof ScanError)) throw err;
    deps.logger.warn({ request_id: context.requestId, tool: tool.fully_qualified_name, error: err.message }, 'security scan failed; call refused');
    return {
      result: errorResult(`Security scanning could not scan this call (${err.message}), so it was refused. Retry with smaller arguments, or ask an administrator to simplify the custom rule.`),
      status: 'error',
      errorCode: 'security_scan_failed',
    };
  }
}

type Scanner = NonNullable<Awaited<ReturnType<RuleSetCache['scannerFor']>>>;

/**
 * The agent's side of a call with the rules applied to what travels on it while the tool runs:
 * notifications and relayed requests from the server are outbound (they reach the model), the
 * agent's answers to those requests inbound (they reach the tool). A notification a block rule hits
 * is dropped; a request it hits, or an answer, is refused to the server with the rule's name.
 */
function scannedLiveCall(live: LiveCall, scanner: Scanner, detections: Detection[]): LiveCall {
  const refused = (by: BlockedBy, what: string) => ({ error: { code: -32600, message: `Blocked by security rule "${by.rule_name}" (${by.kind}): Patchbay withheld ${what}.` } });
  const request = live.request;
  return {
    ...live,
    notify: (notification) => {
      // One the scanner cannot read is dropped, as a failed scan fails closed.
      let scanned: ReturnType<Scanner['scan']>;
      try {
        scanned = scanner.scan(notification.params ?? {}, 'outbound');
      } catch {
        return;
      }
      detections.push(...scanned.detections);
      if (!scanned.blocked) live.notify({ method: notification.method, params: scanned.value as Record<string, unknown> });
    },
    // A ScanError thrown here becomes an Internal error answer to the server (see RemoteMcpClient).
    request: request
      ? async (req) => {
          const asked = scanner.scan(req.params ?? {}, 'outbound');
          detections.push(...asked.detections);
          if (asked.blocked) return refused(asked.blocked, `this ${req.method} request from the agent`);
          const reply = await request({ method: req.method, params: asked.value });
          if (!('result' in reply)) return reply;
          const answered = scanner.scan(reply.result, 'inbound');
          detections.push(...answered.detections);
          if (answered.blocked) return refused(answered.blocked, `the agent's answer to ${req.method}`);
          return { result: answered.value };
        }
      : undefined,
  };
}

function record(
  deps: ScannedCallDeps,
  principal: KeyPrincipal,
  pack: PackTools,
  tool: PackTool | undefined,
  calledName: string,
  context: ScannedCallContext,
  ending: Ending,
  detections: Detection[],
  started: number,
): void {
  const occurredAt = new Date();
  const credits = context.decision?.credits;
  deps.recorder.record({
    event_id: randomUUID(),
    organization_id: principal.organizationId,
    environment: principal.environment,
    tool_pack_id: pack.tool_pack.id,
    registered_user_id: pack.registered_user.id,
    access_key_id: principal.keyId,
    tool_name: tool?.fully_qualified_name ?? calledName,
    connector_slug: tool?.connector_slug ?? calledName.split('__')[0] ?? '',
    status: ending.status,
    duration_ms: Math.round(performance.now() - started),
    credits: 1,
    billing_cycle: credits?.cycle ?? occurredAt.toISOString().slice(0, 7),
    overage: credits ? credits.used > credits.allotment : false,
    detections,
    error_code: ending.errorCode,
    occurred_at: occurredAt.toISOString(),
    meter_epoch: context.decision?.epoch ?? null,
    // What the tool got and what the agent got, both after scanning: a blocked call keeps no arguments (a rule refused them).
    arguments: recordedPayload(ending.sentArguments),
    result: recordedPayload(ending.result),
  });
}
