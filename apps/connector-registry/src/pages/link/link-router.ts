import { getBuiltinConnector, type ConnectorDefinition, type CredentialField } from '@patchbay/connector-catalog';
import { createGuardedFetch } from '@patchbay/outbound';
import { findTextProblem } from '@patchbay/service-kit';
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { clientSecretContext } from '../../domain/application-credentials';
import {
  LinkNoLongerUsableError,
  applicationCredentialFor,
  clearOAuthFlow,
  completeLink,
  findLinkToken,
  findLinkTokenByOAuthState,
  linkAuthMethods,
  linkFlowContext,
  linkTokenUser,
  recordOAuthStart,
  type LinkAuthMethods,
  type PendingOAuthFlow,
} from '../../domain/link-tokens';
import { TokenExchangeError, authorizeUrl, createPkcePair, exchangeAuthorizationCode, randomOAuthState } from '@patchbay/oauth';
import { publicBaseUrl } from '../../domain/public-base-url';
import type { LinkToken } from '../../generated/prisma/client';
import { afterCommit, credentialChange, type AppServices } from '../../services';
import { renderConnectPage, renderMessagePage, type ConnectorView, type MessagePageModel } from './link-views';

/** The path the provider sends the browser back to; registered as the OAuth app's redirect URI. */
export const OAUTH_CALLBACK_PATH = '/link/oauth/callback';

const MAX_FIELD_LENGTH = 4096;

interface UsableLink {
  row: LinkToken;
  connector: ConnectorDefinition;
  methods: LinkAuthMethods;
  userName: string;
}

function connectorView(c: ConnectorDefinition): ConnectorView {
  return { name: c.name, slug: c.slug, description: c.description, logoUrl: c.logo_url };
}

function sendHtml(res: Response, status: number, html: string): void {
  res.status(status).type('html').send(html);
}

function sendMessage(res: Response, status: number, model: MessagePageModel): void {
  sendHtml(res, status, renderMessagePage(model));
}

/** The application's callback URL with the outcome and the caller's state appended. */
function callbackWith(row: LinkToken, params: Record<string, string>): string | undefined {
  if (row.callbackUrl === null) return undefined;
  const url = new URL(row.callbackUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (row.state !== null) url.searchParams.set('state', row.state);
  return url.toString();
}

function callbackError(row: LinkToken, error: string, description: string): string | undefined {
  return callbackWith(row, { error, error_description: description, connector: row.connectorSlug });
}

/** 410 pages for a link that can no longer be used; the application hears the same through its callback. */
function sendUnusable(res: Response, row: LinkToken, status: 'used' | 'expired', connector?: ConnectorDefinition): void {
  const used = status === 'used';
  const message = used
    ? 'This link was already used. Each link connects an account once; ask the application for a new link if you need to connect again.'
    : 'This link has expired. Ask the application for a new link.';
  sendMessage(res, 410, {
    title: used ? 'This link was already used' : 'This link has expired',
    message,
    kind: 'error',
    connector: connector ? connectorView(connector) : undefined,
    returnUrl: callbackError(row, used ? 'link_already_used' : 'link_expired', message),
  });
}

function sendInvalidLink(res: Response): void {
  sendMessage(res, 404, {
    title: 'This link is not valid',
    message: 'This link is not valid. Check that you copied the whole link, or ask the application for a new one.',
    kind: 'error',
  });
}

/** Values of the fields from a form or query; the problem names the first field that is wrong. */
function readFields(fields: CredentialField[], source: unknown): { values: Record<string, string>; problem?: string } {
  const input = (typeof source === 'object' && source !== null ? source : {}) as Record<string, unknown>;
  const values: Record<string, string> = {};
  let problem: string | undefined;
  for (const field of fields) {
    const raw = input[field.name];
    const value = typeof raw === 'string' ? raw.trim() : '';
    if (value !== '') values[field.name] = value;
    if (problem !== undefined) continue;
    if (value === '') {
      if (field.required) problem = `${field.label} is required.`;
    } else if (value.length > MAX_FIELD_LENGTH) {
      problem = `${field.label} is too long (at most ${MAX_FIELD_LENGTH} characters).`;
    } else if (field.type === 'url' && !isHttpUrl(value)) {
      problem = `${field.label} must be a web address starting with https:// (or http://).`;
    }
  }
  return problem === undefined ? { values } : { values, problem };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

function queryString(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' ? value : undefined;
}

/** Only the standard OAuth error codes (and similar tokens) pass through to the application. */
function safeErrorCode(value: string): string {
  return /^[a-z_]{1,64}$/.test(value) ? value : 'provider_error';
}

/**
 * The magic-link pages, served at /link through the edge router: the connect page, the form post,
 * the start of the OAuth 2.0 authorization-code flow with PKCE, and the provider's callback.
 * Every page is self-contained HTML; nothing is cached and no referrer leaves with the token in it.
 */
export function linkPageRouter(services: AppServices): Router {
  // The token URL comes from the catalog or the operator's override, yet it is still an outbound
  // call made on a user's click: the guard keeps it off private addresses unless allowed.
  const outboundFetch = createGuardedFetch({ allowPrivateNetwork: services.config.PATCHBAY_ALLOW_PRIVATE_NETWORK });
  const router = Router();
  const { db, box } = services;

  router.use('/link', ((_req, res, next) => {
    res.set({
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'",
    });
    next();
  }) as RequestHandler);

  const redirectUri = (req: Request) => `${publicBaseUrl(req, services.config.PATCHBAY_PUBLIC_URL)}${OAUTH_CALLBACK_PATH}`;

  /** The link's connector and auth methods when the link can be used now; otherwise the page is sent. */
  async function usableLink(res: Response, token: string): Promise<UsableLink | null> {
    const found = await findLinkToken(db, token);
    if (found.status === 'unknown') {
      sendInvalidLink(res);
      return null;
    }
    const connector = getBuiltinConnector(found.row.connectorSlug);
    if (found.status !== 'active') {
      sendUnusable(res, found.row, found.status, connector);
      return null;
    }
    const user = await linkTokenUser(db, found.row);
    if (!connector || !user) {
      sendMessage(res, 410, {
        title: 'This link is no longer valid',
        message: 'The account or connector this link was made for no longer exists. Ask the application for a new link.',
        kind: 'error',
        returnUrl: callbackError(found.row, 'link_invalid', 'The registered user or connector no longer exists.'),
      });
      return null;
    }
    return { row: found.row, connector, methods: linkAuthMethods(connector, services.oauthOverrides), userName: user.originUserName };
  }

  /** The page's actions are built from the token in the URL it was opened at: the raw token is never stored. */
  async function connectPageModel(token: string, link: UsableLink) {
    const { row, connector, methods } = link;
    const app = methods.oauth ? await applicationCredentialFor(db, row) : null;
    return {
      connector: connectorView(connector),
      pagePath: `/link/${encodeURIComponent(token)}`,
      userName: link.userName,
      oauth: methods.oauth ? (app ? { status: 'ready' as const, fields: methods.oauth.fields } : { status: 'unconfigured' as const }) : undefined,
      form: methods.form ? { fields: methods.form.fields } : undefined,
    };
  }

  function successRedirect(res: Response, row: LinkToken, connector: ConnectorDefinition, status: 302 | 303): void {
    const target = callbackWith(row, { connector: row.connectorSlug, status: 'success' });
    if (target) {
      res.redirect(status, target);
      return;
    }
    sendMessage(res, 200, {
      title: 'Connected',
      message: `Your ${connector.name} account is connected. You can close this window.`,
      kind: 'ok',
      connector: connectorView(connector),
    });
  }

  router.get(OAUTH_CALLBACK_PATH, async (req, res) => {
    const state = queryString(req, 'state') ?? '';
    const found = await findLinkTokenByOAuthState(db, state);
    if (found.status === 'unknown') {
      sendMessage(res, 400, {
        title: 'Sign-in could not be completed',
        message: 'This sign-in response does not match a connection in progress. It may have been used already, or the sign-in was started again in another tab. Open your link again to retry.',
        kind: 'error',
      });
      return;
    }
    const { row } = found;
    const connector = getBuiltinConnector(row.connectorSlug);
    if (found.status !== 'active') {
      sendUnusable(res, row, found.status, connector);
      return;
    }
    const methods = connector ? linkAuthMethods(connector, services.oauthOverrides) : {};
    if (!connector || !methods.oauth || row.pkceVerifierSealed === null) {
      await clearOAuthFlow(db, row);
      sendMessage(res, 410, { title: 'This link is no longer valid', message: 'This connector no longer offers sign-in. Ask the application for a new link.', kind: 'error' });
      return;
    }
    const view = connectorView(connector);
    const providerError = queryString(req, 'error');
    const code = queryString(req, 'code');
    if (providerError !== undefined || !code) {
      // The state matched, so this answer is for this flow: it ends here either way.
      await clearOAuthFlow(db, row);
      const errorCode = providerError !== undefined ? safeErrorCode(providerError) : 'invalid_request';
      const providerDescription = queryString(req, 'error_description')?.slice(0, 300);
      const message =
        errorCode === 'access_denied'
          ? `Access was denied: ${connector.name} reported that the request was not approved, so nothing was connected. Open your link again to retry.`
          : providerError !== undefined
            ? `${connector.name} reported an error (${errorCode}${providerDescription ? `: ${providerDescription}` : ''}), so nothing was connected. Open your link again to retry.`
            : `${connector.name} sent the browser back without an authorization code, so nothing was connected. Open your link again to retry.`;
      sendMessage(res, 400, { title: 'Nothing was connected', message, kind: 'error', connector: view, returnUrl: callbackError(row, errorCode, message) });
      return;
    }
    const pending = box.openJson<PendingOAuthFlow>(row.pkceVerifierSealed, linkFlowContext(row.id));
    const app = await applicationCredentialFor(db, row);
    if (!app) {
      await clearOAuthFlow(db, row);
      const message = `The organization's OAuth app for ${connector.name} was removed during sign-in, so nothing was connected.`;
      sendMessage(res, 409, { title: 'Nothing was connected', message, kind: 'error', connector: view, returnUrl: callbackError(row, 'server_error', message) });
      return;
    }
    let tokens;
    try {
      tokens = await exchangeAuthorizationCode(outboundFetch, methods.oauth.config, {
        code,
        redirectUri: redirectUri(req),
        codeVerifier: pending.code_verifier,
        clientId: app.clientId,
        clientSecret: app.clientSecretSealed === null ? null : box.open(app.clientSecretSealed, clientSecretContext(app.id)),
      });
    } catch (err) {
      if (!(err instanceof TokenExchangeError)) throw err;
      await clearOAuthFlow(db, row);
      const message = `Signing in with ${connector.name} could not be finished. ${err.description} Nothing was connected; open your link again to retry.`;
      sendMessage(res, 502, { title: 'Nothing was connected', message, kind: 'error', connector: view, returnUrl: callbackError(row, err.code, message) });
      return;
    }
    try {
      await completeLink({ db, box }, row, {
        authType: 'oauth2',
        secret: { values: pending.values, ...tokens },
        applicationCredentialId: app.id,
      });
    } catch (err) {
      if (!(err instanceof LinkNoLongerUsableError)) throw err;
      sendUnusable(res, row, 'used', connector);
      return;
    }
    await afterCommit(services, credentialChange(row));
    successRedirect(res, row, connector, 302);
  });

  router.get('/link/:token', async (req, res) => {
    const link = await usableLink(res, req.params.token);
    if (!link) return;
    sendHtml(res, 200, renderConnectPage(await connectPageModel(req.params.token, link)));
  });

  router.get('/link/:token/oauth/start', async (req, res) => {
    const token = req.params.token;
    const link = await usableLink(res, token);
    if (!link) return;
    const { row, connector, methods } = link;
    const model = await connectPageModel(token, link);
    if (!methods.oauth) {
      sendHtml(res, 404, renderConnectPage({ ...model, problem: `${connector.name} does not offer sign-in; fill in the form instead.` }));
      return;
    }
    const app = await applicationCredentialFor(db, row);
    if (!app) {
      sendHtml(res, 409, renderConnectPage(model));
      return;
    }
    const { values, problem } = readFields(methods.oauth.fields, req.query);
    if (problem !== undefined) {
      sendHtml(res, 400, renderConnectPage({ ...model, values, problem }));
      return;
    }
    const pkce = createPkcePair();
    const oauthState = randomOAuthState();
    const recorded = await recordOAuthStart(db, box, row, { oauthState, applicationCredentialId: app.id, pending: { code_verifier: pkce.verifier, values } });
    if (!recorded) {
      sendUnusable(res, row, 'used', connector);
      return;
    }
    const scopes = app.scopes.length > 0 ? app.scopes : methods.oauth.config.default_scopes;
    res.redirect(302, authorizeUrl(methods.oauth.config, { clientId: app.clientId, redirectUri: redirectUri(req), scopes, state: oauthState, codeChallenge: pkce.challenge }));
  });

  router.post('/link/:token', express.urlencoded({ extended: false, limit: '64kb' }), async (req, res) => {
    const token = req.params.token;
    const link = await usableLink(res, token);
    if (!link) return;
    const { row, connector, methods } = link;
    const model = await connectPageModel(token, link);
    if (!methods.form) {
      sendHtml(res, 404, renderConnectPage({ ...model, problem: `${connector.name} connects through sign-in only; use the Connect button.` }));
      return;
    }
    const textIssue = findTextProblem(req.body, 'form');
    const { values, problem } = textIssue ? { values: {}, problem: `A field ${textIssue.message}; correct it and submit again.` } : readFields(methods.form.fields, req.body);
    if (problem !== undefined) {
      sendHtml(res, 400, renderConnectPage({ ...model, values, problem }));
      return;
    }
    try {
      await completeLink({ db, box }, row, { authType: methods.form.type, secret: { values }, applicationCredentialId: null });
    } catch (err) {
      if (!(err instanceof LinkNoLongerUsableError)) throw err;
      sendUnusable(res, row, 'used', connector);
      return;
    }
    await afterCommit(services, credentialChange(row));
    // 303: the browser follows with a GET, so a reload cannot post the credential again.
    successRedirect(res, row, connector, 303);
  });

  return router;
}
