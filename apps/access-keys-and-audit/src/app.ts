import { KeyVerifier, VERIFIER_LOCAL, addKeyInvalidationToOutbox, type KeyInvalidation } from '@patchbay/auth';
import { OutboxRelay } from '@patchbay/queues';
import { createServiceApp, finishServiceApp, healthHandler, pingRedis, type Logger } from '@patchbay/service-kit';
import type { Express } from 'express';
import type { Cluster, Redis } from 'ioredis';
import { SERVICE_NAME } from './config';
import type { Db } from './db';
import { AccessKeyService, loadPrincipalByHash } from './domain/access-keys';
import { RegisterRoutes } from './generated/routes';
import openApiDocument from './generated/swagger.json';
import { internalRouter } from './internal/verify-route';
import type { AppServices } from './services';
import type { RestrictionIdChecker } from './domain/restriction-ids';
import { MemberService } from './domain/members/members';
import { RoleService } from './domain/members/roles';
import { SESSION_INVALIDATION_CHANNEL, loadSessionByHash, type SessionPrincipal } from './domain/members/session-principal';
import { DEFAULT_SESSION_SETTINGS, SessionService, type SessionEvents, type SessionSettings } from './domain/members/sessions';
import { SignInThrottle, type SignInThrottleSettings } from './domain/members/sign-in-throttle';
import { PendingSignIns } from './domain/members/pending-sign-in';
import { TwoFactorService } from './domain/members/two-factor';
import { SsoService } from './domain/sso/sso';
import type { OutboundPolicy } from '@patchbay/outbound';
import type { SecretBox } from '@patchbay/secrets';

export interface AppDeps {
  db: Db;
  /**
   * Connection for commands and for publishing cache invalidations (give it CHANNEL_PUBLISHER_OPTIONS
   * from @patchbay/queues, so a publish fails at once while Redis is down and reconnects are quick).
   */
  redis: Redis | Cluster;
  /**
   * Publishes the cache invalidations that changes write to the outbox (its `publisher` is `redis`).
   * main.ts starts one, so invalidations Redis did not take are retried and sent when it reconnects;
   * without it, one that is not polled is made here (each change still publishes its own at once).
   */
  relay?: OutboxRelay;
  logger: Logger;
  serviceToken: string;
  publicBaseUrl?: string;
  /** Verifier of incoming keys; built from the database when not given. */
  verifier?: KeyVerifier;
  /** Checks that a new key's restriction ids exist (connector-registry). */
  restrictionIds?: RestrictionIdChecker;
  /** Verifier of console sessions (channel SESSION_INVALIDATION_CHANNEL); built from the database when not given. */
  sessionVerifier?: KeyVerifier<SessionPrincipal>;
  sessionSettings?: SessionSettings;
  signInThrottle?: SignInThrottleSettings;
  /** Seals SSO client secrets and TOTP secrets; without it those features answer 503. */
  secrets?: SecretBox;
  /** Whether SSO discovery URLs may be private addresses (tests, local development). */
  outboundPolicy?: OutboundPolicy;
  /** The clock of sessions and invitations (tests move it). */
  now?: () => number;
}

export const DEFAULT_SIGN_IN_THROTTLE: SignInThrottleSettings = { maxFailuresPerAccount: 5, maxFailuresPerAddress: 20, failureWindowSeconds: 900, lockoutSeconds: 900 };

/** How long a committed change waits for its cache invalidation to be published before answering anyway. */
const PUBLISH_DEADLINE_MS = 1_000;

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export function createApp(deps: AppDeps): { app: Express; services: AppServices; verifier: KeyVerifier; sessionVerifier: KeyVerifier<SessionPrincipal> } {
  const app = createServiceApp({ logger: deps.logger });
  const verifier = deps.verifier ?? new KeyVerifier({ loader: (hash) => loadPrincipalByHash(deps.db, hash) });
  const relay = deps.relay ?? new OutboxRelay({ executor: deps.db, queues: {}, publisher: deps.redis, logger: deps.logger });
  const accessKeys = new AccessKeyService(deps.db, {
    keyChanged: async (oldKeyHash) => {
      // This process first, then every other service over pub/sub: the invalidation committed with the
      // change (outbox), and the relay publishes it now.
      verifier.invalidate({ keyHash: oldKeyHash });
      // The change has committed: the answer must say so even when Redis does not answer. The
      // invalidation then stays in the outbox and is published as soon as Redis answers; meanwhile a
      // verifier whose subscription is down asks on every request rather than trusting its cache.
      if ((await withDeadline(relay.kick(), PUBLISH_DEADLINE_MS)) === 'late') {
        deps.logger.warn({ key_hash_prefix: oldKeyHash.slice(0, 8) }, 'key invalidation not published yet (Redis slow); it stays in the outbox until published');
      }
    },
  }, undefined, deps.restrictionIds);
  const now = deps.now ?? Date.now;
  const sessionVerifier = deps.sessionVerifier ?? new KeyVerifier<SessionPrincipal>({ loader: (hash) => loadSessionByHash(deps.db, hash), channel: SESSION_INVALIDATION_CHANNEL, now });
  const sessionEvents: SessionEvents = {
    stage: (tx, message) => addKeyInvalidationToOutbox(tx, message, SESSION_INVALIDATION_CHANNEL),
    published: async (message: KeyInvalidation) => {
      // Here at once; elsewhere over pub/sub from the outbox. An ended session must stop within a second.
      sessionVerifier.invalidate(message);
      if ((await withDeadline(relay.kick(), PUBLISH_DEADLINE_MS)) === 'late') {
        deps.logger.warn({ invalidation: message }, 'session invalidation not published yet (Redis slow); it stays in the outbox until published');
      }
    },
  };
  const sessionSettings = deps.sessionSettings ?? DEFAULT_SESSION_SETTINGS;
  const throttle = new SignInThrottle(deps.redis, deps.signInThrottle ?? DEFAULT_SIGN_IN_THROTTLE, now);
  const pendingSignIns = new PendingSignIns(deps.redis);
  const sessions = new SessionService(deps.db, sessionVerifier, throttle, sessionEvents, sessionSettings, now, deps.logger, pendingSignIns);
  const twoFactor = new TwoFactorService(deps.db, deps.secrets, now);
  const sso = new SsoService(deps.db, deps.redis, deps.secrets, deps.outboundPolicy ?? { allowPrivateNetwork: false }, now);
  const roles = new RoleService(deps.db, sessionEvents);
  const members = new MemberService(deps.db, sessions, sessionEvents, now);
  const publishInvalidations = async (): Promise<void> => {
    if ((await withDeadline(relay.kick(), PUBLISH_DEADLINE_MS)) === 'late') deps.logger.warn('invalidation not published yet (Redis slow); it stays in the outbox until published');
  };
  const organizationChanged = async (organizationId: string): Promise<void> => {
    verifier.invalidate({ organizationId });
    await publishInvalidations();
  };
  const services: AppServices = { db: deps.db, accessKeys, sessions, sessionSettings, members, roles, twoFactor, pendingSignIns, signInThrottle: throttle, sso, publicBaseUrl: deps.publicBaseUrl, publishInvalidations, organizationChanged };
  app.locals.services = services;
  app.locals[VERIFIER_LOCAL] = verifier;

  app.get(
    '/healthz',
    healthHandler(SERVICE_NAME, [
      { name: 'postgres', check: async () => { await deps.db.$queryRaw`SELECT 1`; } },
      { name: 'redis', check: () => pingRedis(deps.redis) },
    ]),
  );
  app.get('/openapi.json', (_req, res) => {
    res.json(openApiDocument);
  });
  app.use('/internal/v1', internalRouter(deps.db, deps.serviceToken, sessions));
  RegisterRoutes(app);
  finishServiceApp(app, deps.logger);
  return { app, services, verifier, sessionVerifier };
}
