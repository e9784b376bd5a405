import { WireError } from '../errors';
import { REASONING_EFFORTS, type CanonicalRequest, type ReasoningEffort, type VendorTarget, type Warning } from '../types';

/**
 * What every dialect does before translating: checks the request against what the route can do.
 * Input the route cannot read is a 400 unsupported_params (nothing sensible can run instead); things
 * it can run without (tools on a model without tool calling, an effort level it does not have,
 * cache markers) run with changes and a warning. Returns the request to translate (the same object
 * when nothing changed) and the warnings.
 */
export function prepareRequest(target: VendorTarget, request: CanonicalRequest): { request: CanonicalRequest; warnings: Warning[] } {
  const caps = target.capabilities;
  const warnings: Warning[] = [];
  if (!caps) return { request, warnings };
  let out = request;

  if (caps.input) {
    const readable = new Set(caps.input);
    for (const message of request.messages) {
      for (const block of message.content) {
        const kind = block.type === 'tool_result' ? null : block.type === 'image' || block.type === 'document' || block.type === 'audio' || block.type === 'video' ? block.type : null;
        if (kind && !readable.has(kind)) {
          throw WireError.invalid('unsupported_params', `${target.model} on ${target.vendor} cannot read ${kind} input; send text or choose a model that reads ${kind}s.`, 'input');
        }
      }
    }
  }

  if (caps.tools === false && request.tools.length > 0) {
    out = { ...out, tools: [], toolChoice: null, parallelToolCalls: null };
    warnings.push({
      code: 'tools_dropped',
      message: `${target.model} on ${target.vendor} cannot call tools; the request ran without its ${request.tools.length} tool${request.tools.length > 1 ? 's' : ''}.`,
      detail: { tools: request.tools.map((t) => t.name), model: target.model, vendor: target.vendor },
    });
  }

  if (caps.structuredOutputs === false && request.responseFormat?.type === 'json_schema') {
    out = { ...out, responseFormat: { type: 'json_object' } };
    warnings.push({
      code: 'response_format_adjusted',
      message: `${target.model} on ${target.vendor} has no structured outputs; the schema was not enforced (JSON mode instead).`,
      detail: { requested: 'json_schema', applied: 'json_object', model: target.model, vendor: target.vendor },
    });
  }

  const effort = request.reasoning?.effort;
  if (effort && caps.reasoningEfforts !== undefined) {
    const applied = clampEffort(effort, caps.reasoningEfforts);
    if (applied !== effort) {
      out = { ...out, reasoning: { ...out.reasoning, effort: applied ?? undefined } };
      warnings.push(effortWarning(effort, applied, target));
    }
  }

  if (caps.promptCaching === false && hasCacheMarkers(request)) {
    warnings.push({
      code: 'cache_markers_removed',
      message: `${target.model} on ${target.vendor} cannot honour prompt-cache markers; they were removed.`,
      detail: { model: target.model, vendor: target.vendor },
    });
    out = { ...out, stripCacheMarkers: true } as CanonicalRequest;
  }
  return { request: out, warnings };
}

/** The highest level the route accepts at or below the one asked for, else its lowest; null without effort control. */
export function clampEffort(effort: ReasoningEffort, allowed: ReasoningEffort[] | null): ReasoningEffort | null {
  if (allowed === null || allowed.length === 0) return null;
  if (allowed.includes(effort)) return effort;
  const rank = REASONING_EFFORTS.indexOf(effort);
  let best: ReasoningEffort | null = null;
  for (const level of allowed) if (REASONING_EFFORTS.indexOf(level) <= rank && (best === null || REASONING_EFFORTS.indexOf(level) > REASONING_EFFORTS.indexOf(best))) best = level;
  if (best) return best;
  let lowest = allowed[0]!;
  for (const level of allowed) if (REASONING_EFFORTS.indexOf(level) < REASONING_EFFORTS.indexOf(lowest)) lowest = level;
  return lowest;
}

export function effortWarning(requested: ReasoningEffort, applied: ReasoningEffort | null, target: VendorTarget): Warning {
  return {
    code: 'reasoning_effort_adjusted',
    message:
      applied === null
        ? `reasoning effort '${requested}' was dropped: ${target.model} on ${target.vendor} has no effort control.`
        : `reasoning effort '${requested}' was adjusted to '${applied}': the highest level ${target.model} on ${target.vendor} supports.`,
    detail: { requested_effort: requested, applied_effort: applied, model: target.model, vendor: target.vendor },
  };
}

export function hasCacheMarkers(request: CanonicalRequest): boolean {
  if (request.system.some((b) => b.cache)) return true;
  if (request.tools.some((t) => t.cache)) return true;
  return request.messages.some((m) => m.content.some((b) => 'cache' in b && b.cache !== undefined));
}

/** Whether the dialect should leave cache markers out (set by prepareRequest). */
export function stripsCacheMarkers(request: CanonicalRequest): boolean {
  return (request as CanonicalRequest & { stripCacheMarkers?: boolean }).stripCacheMarkers === true;
}
