import { estimateInputTokens, parseSurfaceRequest, requestedMaxOutputTokens, WireError, type Surface } from '@patchbay/model-wire';
import { reserveMicros } from '../catalog/catalog';
import { GatewayError } from '../http/errors';
import type { Caller } from '../keys/callers';
import { admit, resolveRoute, resolveScope, SharedReservation, spendSubject, type ModelDeps } from '../model/model-request';
import { runCapturedChat, type BodyRoute, type CapturedAnswer, type ModelExchange, type ModelHandler } from '../model/model-routes';
import { FUSION_CODES, isFusionBody, judgeInput, parseFusionRequest, type FusionSpec } from './fusion-request';

/**
 * Fusion (issue 27 §4; facts file §3.2): one prompt to a panel of models in parallel, then a judge
 * (`synthesis_model`) writes the answer from their answers. Each call is an ordinary native request
 * through the one request path (routing, failover, guardrails, budgets, its own usage record), so every
 * call is billed where it ran (its own usage record) under one reservation made for the whole run
 * before it starts; the answer's usage is their sum, and a `fusion` block says who answered,
 * who was dropped and why. Registered on /v1/responses for bodies with `model: "fusion"`.
 */
export const fusionRoute: BodyRoute = (surface: Surface, body: unknown) => (surface === 'native-responses' && isFusionBody(body) ? handleFusion : null);

interface PanelAnswer {
  model: string;
  vendor: string | null;
  text: string;
  usage: Record<string, unknown>;
}

interface Dropped {
  model: string;
  status: number;
  code: string | null;
  message: string;
}

/** The text of a native response's answer. */
function answerText(body: Record<string, unknown>): string {
  const output = Array.isArray(body.output) ? (body.output as Array<{ content?: Array<{ type?: string; text?: string }> }>) : [];
  return output
    .flatMap((item) => item.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join('')
    .trim();
}

function errorOf(answer: CapturedAnswer): { code: string | null; message: string; type: string | null } {
  const error = (answer.body as { error?: { code?: string | null; message?: string; type?: string } } | null)?.error;
  const detail = (answer.body as { detail?: unknown } | null)?.detail;
  return { code: error?.code ?? (detail ? 'invalid_request_body' : null), message: error?.message ?? (detail ? JSON.stringify(detail) : 'no usable answer'), type: error?.type ?? null };
}

const NUMERIC_USAGE = ['input_tokens', 'output_tokens', 'total_tokens', 'cost_usd'] as const;

/** The sum of several native usage objects (top-level counts, their details, the cost). */
function sumUsage(usages: Array<Record<string, unknown>>): Record<string, unknown> {
  const add = (target: Record<string, unknown>, source: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(source)) {
      if (typeof v === 'number') target[k] = ((target[k] as number | undefined) ?? 0) + v;
      else if (v && typeof v === 'object' && !Array.isArray(v)) add((target[k] ??= {}) as Record<string, unknown>, v as Record<string, unknown>);
    }
  };
  const total: Record<string, unknown> = {};
  for (const usage of usages) add(total, usage);
  for (const k of NUMERIC_USAGE) total[k] ??= 0;
  total.cost_usd = Math.round((total.cost_usd as number) * 1e6) / 1e6;
  return total;
}

const handleFusion: ModelHandler = async (deps: ModelDeps, ex: ModelExchange, caller: Caller, body: unknown) => {
  const surface = 'native-responses';
  // X-RateLimit-* as on every answer to an authenticated model request (the calls' admissions noted them).
  const rateLimit = async () => (deps.rateLimitHeaders ? deps.rateLimitHeaders.of(caller) : {});
  try {
    const spec = parseFusionRequest(body as Record<string, unknown>);
    // The request as every call gets it, checked once here (a schema error is the caller's, before any call).
    const probe = parseSurfaceRequest(surface, { ...spec.base, model: spec.synthesisModel });
    const scope = resolveScope(ex, caller, probe.gateway);
    for (const [i, name] of spec.analysisModels.entries()) {
      const model = deps.catalog.resolve(name);
      if (model.type !== 'chat') throw WireError.invalid('unsupported_endpoint_for_model', `fusion.analysis_models[${i}]: ${model.id} is not a chat model.`, `fusion.analysis_models[${i}]`);
    }
    const judgeModel = deps.catalog.resolve(spec.synthesisModel);
    if (judgeModel.type !== 'chat') throw WireError.invalid('unsupported_endpoint_for_model', `fusion.synthesis_model: ${judgeModel.id} is not a chat model.`, 'fusion.synthesis_model');
    // The judge must be callable by this key, or no run could finish: refused here, before any call.
    const judgeRoute = resolveRoute(deps, caller, { ...probe.gateway, model: judgeModel.id }, 'chat');

    // Budgets for the whole run before it starts: the worst case of every panel call and of the judge
    // (which reads the panel's answers) as one reservation, so a run that cannot start costs nothing.
    const inputTokens = estimateInputTokens(probe.request);
    const requested = requestedMaxOutputTokens(probe.request);
    let panelOutput = 0;
    let reserve = 0;
    const refusedUpFront: Dropped[] = [];
    const panel: string[] = [];
    for (const name of spec.analysisModels) {
      try {
        const route = resolveRoute(deps, caller, { ...probe.gateway, model: name }, 'chat');
        const maxOutput = requested ?? route.model.maxOutputTokens;
        panelOutput += maxOutput;
        reserve += reserveMicros(route.price, inputTokens, maxOutput);
        panel.push(route.model.id);
      } catch (err) {
        // A panel model the key may not call or the organization blocks is dropped, as a failed one is.
        const e = err as { status?: number; code?: string | null; message?: string };
        refusedUpFront.push({ model: name, status: e.status ?? 400, code: e.code ?? null, message: e.message ?? 'refused' });
      }
    }
    reserve += reserveMicros(judgeRoute.price, inputTokens + panelOutput, requested ?? judgeRoute.model.maxOutputTokens);
    // One reservation for the whole run, admitted in one step: of two runs that fit the budget only once,
    // one starts and the other is refused before it calls anything. The calls run under it (no call
    // admits its own), and it is settled at what they cost once the run is done.
    const run = await admit(deps.spend, spendSubject(caller, scope, judgeRoute.byok), reserve);
    deps.rateLimitHeaders?.note(caller.key.hash, run.headers);
    const shared = new SharedReservation(run.reservation, run.headers);
    let answer: { status: number; body: unknown };
    try {
      answer = await runPanelAndJudge(deps, ex, caller, spec, panel, judgeModel.id, refusedUpFront, shared);
    } finally {
      // Before the answer: the run's spend is in the counters when its caller can make the next request.
      await shared.settle(deps.spend).catch(() => undefined);
    }
    ex.json(answer.status, { ...run.headers, ...(await rateLimit()) }, answer.body);
  } catch (err) {
    ex.error(surface, err, await rateLimit());
  }
};

/**
 * The panel in parallel, then the judge on the usable answers, every call under the run's reservation.
 * Returns the run's answer (the judge's, or the judge's error with what the panel did beside it), or
 * throws fusion_panel_failed when no panel model gave a usable answer.
 */
async function runPanelAndJudge(deps: ModelDeps, ex: ModelExchange, caller: Caller, spec: FusionSpec, panel: string[], judgeModel: string, refusedUpFront: Dropped[], shared: SharedReservation): Promise<{ status: number; body: unknown }> {
  const surface = 'native-responses';
  const started = Date.now();
  const answers = await Promise.all(panel.map((model) => runCapturedChat(deps, caller, surface, { ...spec.base, model, stream: false }, ex.headers, ex.signal, shared)));
  const usable: PanelAnswer[] = [];
  const dropped: Dropped[] = [...refusedUpFront];
  answers.forEach((answer, i) => {
    const model = panel[i]!;
    const response = answer.body as Record<string, unknown>;
    const text = answer.status === 200 ? answerText(response) : '';
    if (answer.status === 200 && text !== '') usable.push({ model, vendor: (response.vendor as string | undefined) ?? null, text, usage: (response.usage as Record<string, unknown>) ?? {} });
    else if (answer.status === 200) dropped.push({ model, status: 200, code: 'empty_answer', message: 'the model answered with no text' });
    else dropped.push({ model, status: answer.status, ...errorOf(answer) });
  });
  const panelUsages = answers.filter((a) => a.status === 200).map((a) => ((a.body as { usage?: Record<string, unknown> }).usage ?? {}));
  if (usable.length === 0) {
    const allRefused = dropped.every((d) => d.status === 403);
    throw new GatewayError(
      allRefused ? 403 : 502,
      allRefused ? 'permission_error' : 'provider_error',
      `No panel model gave a usable answer: ${dropped.map((d) => `${d.model} (${d.code ?? d.status})`).join(', ')}.`,
      FUSION_CODES.panelFailed,
      undefined,
      'fusion.analysis_models',
      { fusion: { analysis_models: spec.analysisModels, synthesis_model: judgeModel, responses: [], failed_models: dropped, usage: sumUsage(panelUsages) } },
    );
  }

  const judged = await runCapturedChat(deps, caller, surface, { ...spec.base, model: judgeModel, stream: false, input: judgeInput(spec.base.input, usable) }, ex.headers, ex.signal, shared);
  const judgeBody = judged.body as Record<string, unknown>;
  const fusion = {
    analysis_models: spec.analysisModels,
    synthesis_model: judgeModel,
    responses: usable.map((a) => ({ model: a.model, vendor: a.vendor, text: a.text, usage: a.usage })),
    failed_models: dropped,
    calls: answers.length + 1,
    panel_ms: Date.now() - started,
  };
  // The judge failed: its error, with what the panel did (and cost) beside it.
  if (judged.status !== 200) return { status: judged.status, body: { ...judgeBody, fusion: { ...fusion, usage: sumUsage(panelUsages) } } };
  const usage = sumUsage([...panelUsages, (judgeBody.usage as Record<string, unknown>) ?? {}]);
  return { status: 200, body: { ...judgeBody, usage, fusion: { ...fusion, judge: { model: judgeBody.model, vendor: judgeBody.vendor, usage: judgeBody.usage } } } };
}
