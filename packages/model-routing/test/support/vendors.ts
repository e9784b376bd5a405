import { randomUUID } from 'node:crypto';
import {
  callVendor,
  createStreamRenderer,
  createVendorHttp,
  estimateInputTokens,
  parseSurfaceRequest,
  streamVendor,
  VendorError,
  type CanonicalResponse,
  type ChatSurface,
  type Dialect,
  type StreamTimeouts,
  type VendorStream,
  type VendorTarget,
} from '@patchbay/model-wire';
import { startFakeAnthropic, startFakeOpenAI, type FakeVendor } from '@patchbay/provider-fakes';
import {
  catalogFromModels,
  costMicros,
  resolveRoutes,
  routeNeeds,
  runWithFailover,
  type CatalogModel,
  type FailoverResult,
  type PolicyDirectory,
  type Route,
  type RouteDecision,
  type RouteHealth,
  type RoutingPolicy,
} from '../../src';

/**
 * Three vendors behind the real fakes: `openai` and `azure` (two OpenAI fakes: two vendors of
 * openai/gpt-4o, as Azure serves OpenAI's models) and `anthropic`. The policy tries gpt-4o on
 * openai, then on azure, then claude-sonnet-4 on anthropic.
 */
export interface Vendors {
  openai: FakeVendor;
  azure: FakeVendor;
  anthropic: FakeVendor;
  policy: RoutingPolicy;
  policies: PolicyDirectory;
  catalog: ReturnType<typeof catalogFromModels>;
  timeouts: StreamTimeouts;
}

const CAPS = { tools: true, structuredOutputs: true, streaming: true, input: ['text' as const, 'image' as const] };

export function useVendors(timeouts: StreamTimeouts): Vendors {
  const env = { timeouts } as Vendors;
  beforeAll(async () => {
    env.openai = await startFakeOpenAI();
    env.azure = await startFakeOpenAI();
    env.anthropic = await startFakeAnthropic();
    const models: CatalogModel[] = [
      {
        id: 'openai/gpt-4o',
        provider: 'openai',
        endpoint: 'chat',
        active: true,
        vendors: [
          { vendor: 'openai', vendorModel: 'gpt-4o', available: true, zdr: false, contextWindow: 128_000, maxOutputTokens: 16_384, capabilities: CAPS, prices: { standard: { inputPerMillion: 2.5, outputPerMillion: 10 }, flex: { inputPerMillion: 1.25, outputPerMillion: 5 } } },
          { vendor: 'azure', vendorModel: 'gpt-4o', available: true, zdr: true, contextWindow: 128_000, maxOutputTokens: 16_384, capabilities: CAPS, prices: { standard: { inputPerMillion: 2.75, outputPerMillion: 11 } } },
        ],
      },
      {
        id: 'anthropic/claude-sonnet-4',
        provider: 'anthropic',
        endpoint: 'chat',
        active: true,
        vendors: [{ vendor: 'anthropic', vendorModel: 'claude-sonnet-4', available: true, zdr: true, contextWindow: 200_000, maxOutputTokens: 8_192, capabilities: CAPS, prices: { standard: { inputPerMillion: 3, outputPerMillion: 15 } } }],
      },
    ];
    env.catalog = catalogFromModels(models);
    env.policy = {
      id: randomUUID(),
      organizationId: randomUUID(),
      name: 'Fallback',
      description: null,
      slug: 'fallback',
      scope: { type: 'organization' },
      strategy: 'priority',
      targets: [
        { model: 'openai/gpt-4o', vendors: ['openai', 'azure'], weight: null },
        { model: 'anthropic/claude-sonnet-4', vendors: null, weight: null },
      ],
      vendorRules: { allow: null, deny: [], zeroDataRetention: false, regions: null },
      isDefault: true,
    };
    const policy = env.policy;
    env.policies = { byId: (id) => (id === policy.id ? policy : undefined), bySlug: (s) => (s === policy.slug ? policy : undefined), customerDefault: () => undefined, projectDefault: () => undefined, organizationDefault: () => policy };
  });
  afterAll(async () => {
    await Promise.all([env.openai.close(), env.azure.close(), env.anthropic.close()]);
  });
  beforeEach(() => {
    env.openai.reset();
    env.azure.reset();
    env.anthropic.reset();
  });
  return env;
}

const http = createVendorHttp();
afterAll(async () => {
  await http.close();
});

export function targetFor(env: Vendors, route: Route): VendorTarget {
  const fake = env[route.vendor as 'openai' | 'azure' | 'anthropic'];
  const dialect: Dialect = route.vendor === 'anthropic' ? 'anthropic' : 'openai';
  return {
    dialect,
    vendor: route.vendor,
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKeys.valid,
    vendorModel: route.vendorModel,
    model: route.model,
    serviceTier: route.serviceTier === 'standard' ? undefined : route.serviceTier,
    maxOutputTokens: route.maxOutputTokens,
  };
}

/** The money side, as the app's SpendControl sees it: a reservation per attempt, settled or released. */
export interface Ledger {
  admitted: string[];
  /** Failed attempts: [route, micro-USD billed]; 0 means released. */
  failed: Array<[string, number]>;
  /** The answer's cost at the route that ran it. */
  settled: Array<[string, number]>;
}

export interface Run<T> {
  result: FailoverResult<T>;
  decision: RouteDecision;
  ledger: Ledger;
}

function decide(env: Vendors, surface: ChatSurface, body: Record<string, unknown>) {
  const parsed = parseSurfaceRequest(surface, body);
  const decision = resolveRoutes({
    surface,
    fields: parsed.gateway,
    headers: {},
    needs: routeNeeds(parsed.request, { inputTokens: estimateInputTokens(parsed.request), outputTokens: 256 }),
    caller: { keyPolicyId: null, keyProjectId: null, keyCustomerId: null, allowedModels: null },
    policies: env.policies,
    catalog: env.catalog,
  });
  return { parsed, decision };
}

const routeName = (r: Route) => `${r.model}@${r.vendor}${r.serviceTier === 'standard' ? '' : `:${r.serviceTier}`}`;

/** A non-streaming chat request through routing and failover, billed as the app bills it. */
export async function ask(env: Vendors, body: Record<string, unknown> = {}, options: { health?: RouteHealth; beforeAttempt?: (route: Route) => void } = {}): Promise<Run<CanonicalResponse>> {
  const { parsed, decision } = decide(env, 'openai-chat', { messages: [{ role: 'user', content: 'Say hello' }], ...body });
  const ledger: Ledger = { admitted: [], failed: [], settled: [] };
  const result = await runWithFailover(
    decision,
    (route, context) => callVendor(targetFor(env, route), parsed.request, { signal: new AbortController().signal, timeouts: env.timeouts, http, failEmpty: context.failEmpty }),
    {
      stream: false,
      health: options.health,
      hooks: {
        beforeAttempt: (route) => {
          options.beforeAttempt?.(route);
          ledger.admitted.push(routeName(route));
        },
        attemptFailed: (failed) => {
          ledger.failed.push([routeName(failed.route), failed.costMicros]);
        },
      },
    },
  );
  if (result.ok) ledger.settled.push([routeName(result.route), costMicros(result.route.price, result.value.usage)]);
  await result.settled;
  return { result, decision, ledger };
}

export interface StreamRun extends Run<VendorStream> {
  /** The SSE frames the client received, in order. */
  frames: string[];
  /** The error that ended the stream after it opened, if any. */
  streamError: VendorError | null;
}

/**
 * A streaming request on a surface through routing and failover, rendered frame by frame as the
 * app writes them. Before the stream opens, a failure is the request's status and body.
 */
export async function stream(env: Vendors, surface: ChatSurface, body: Record<string, unknown>, options: { health?: RouteHealth } = {}): Promise<StreamRun> {
  const { parsed, decision } = decide(env, surface, { ...body, stream: true });
  const ledger: Ledger = { admitted: [], failed: [], settled: [] };
  const result = await runWithFailover(
    decision,
    (route, context) => streamVendor(targetFor(env, route), parsed.request, { signal: new AbortController().signal, timeouts: env.timeouts, http, failEmpty: context.failEmpty }),
    {
      stream: true,
      health: options.health,
      hooks: {
        beforeAttempt: (route) => void ledger.admitted.push(routeName(route)),
        attemptFailed: (failed) => void ledger.failed.push([routeName(failed.route), failed.costMicros]),
      },
    },
  );
  await result.settled;
  const frames: string[] = [];
  let streamError: VendorError | null = null;
  if (!result.ok) return { result, decision, ledger, frames, streamError };
  const route = result.route;
  const renderer = createStreamRenderer(surface, {
    id: `resp_${randomUUID().replace(/-/g, '')}`,
    model: route.model,
    vendor: route.vendor,
    created: 0,
    warnings: [...parsed.warnings, ...result.value.warnings],
    render: parsed.render,
    metadata: parsed.gateway.metadata,
    estimatedInputTokens: estimateInputTokens(parsed.request),
  });
  const push = (text: string | undefined) => {
    if (text) frames.push(...text.split('\n\n').filter((f) => f.trim() !== ''));
  };
  push(renderer.start());
  // The native stream tells the client the answer comes from a later route than the first one tried.
  if (result.attempts.length > 1 && renderer.restart) push(renderer.restart({ model: route.model, vendor: route.vendor }));
  let usage = null;
  try {
    for await (const event of result.value) {
      if (event.type === 'finish') usage = event.usage;
      push(renderer.event(event));
    }
    push(renderer.finish({ costUsd: 0 }));
  } catch (err) {
    streamError = err as VendorError;
    usage = streamError.usage;
    push(renderer.error(streamError));
  }
  ledger.settled.push([routeName(route), costMicros(route.price, usage)]);
  return { result, decision, ledger, frames, streamError };
}
