import { AppError } from '@patchbay/errors';
import express, { Router, type Response } from 'express';
import { CREDENTIAL_FIELDS } from '../domain/platform-credentials';
import { LinkPageError, OAUTH_CALLBACK_PATH, completeLink, finishOAuth, oauthPlatforms, openLinkToken, startOAuth } from '../domain/link-flow';
import type { LinkToken } from '../generated/prisma/client';
import type { AppServices } from '../services';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const FIELD_LABELS: Record<string, string> = {
  access_token: 'API token (private app token or access token)',
  account_id: 'Account ID (Server-to-Server OAuth app)',
  client_id: 'Client ID',
  client_secret: 'Client secret',
  user_id: 'User whose webinars to sync (optional, default: the app owner)',
  organization_id: 'Organization ID (optional, default: all your organizations)',
};

function layout(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2333}
label{display:block;margin:.8rem 0 .2rem}input,select{width:100%;padding:.5rem;box-sizing:border-box}button{margin-top:1.2rem;padding:.6rem 1.2rem}
.error{color:#a11;background:#fee;padding:.6rem}.hint{color:#555;font-size:.9rem}fieldset{border:1px solid #ccd;margin-top:1rem}code{word-break:break-all}</style>
</head><body>${body}</body></html>`;
}

function formPage(link: LinkToken, token: string, oauth: readonly string[], error?: string): string {
  const platforms = link.platform ? [link.platform] : Object.keys(CREDENTIAL_FIELDS);
  const sections = platforms
    .map((p) => {
      const spec = CREDENTIAL_FIELDS[p as keyof typeof CREDENTIAL_FIELDS];
      // OAuth 2.0 with PKCE where the installation has the platform's OAuth app; the API token form stays beside it.
      const signIn = oauth.includes(p)
        ? `<form method="post" action="/api/mktg/v1/link/${encodeURIComponent(token)}/oauth"><input type="hidden" name="platform" value="${p}"><button type="submit">Sign in with ${escape(spec.label)}</button></form><p class="hint">or enter an API token:</p>`
        : '';
      const groups = spec.oneOf
        .map((set, i) => `<fieldset><legend>${i === 0 ? '' : 'or '}${set.map((f) => escape(FIELD_LABELS[f] ?? f).split(' (')[0]).join(' + ')}</legend>${set
          .map((f) => `<label for="${p}-${f}">${escape(FIELD_LABELS[f] ?? f)}</label><input id="${p}-${f}" name="${f}" type="password" autocomplete="off">`)
          .join('')}</fieldset>`)
        .join('');
      const optional = spec.optional.map((f) => `<label for="${p}-${f}">${escape(FIELD_LABELS[f] ?? f)}</label><input id="${p}-${f}" name="${f}">`).join('');
      return `<h2>${escape(spec.label)}</h2>${signIn}<form method="post" action="/api/mktg/v1/link/${encodeURIComponent(token)}"><input type="hidden" name="platform" value="${p}">${groups}${optional}<button type="submit">Link ${escape(spec.label)}</button></form>`;
    })
    .join('<hr>');
  return layout(
    'Link your marketing platform',
    `<h1>Link your marketing platform</h1><p class="hint">For ${escape(link.endUserOrganizationName)}. Your credentials are checked with the platform and stored encrypted; they are never shown again.</p>${
      error ? `<p class="error" role="alert">${escape(error)}</p>` : ''
    }${sections}`,
  );
}

function donePage(publicToken: string, platformLabel: string): string {
  // The opener (the app that started Link) receives the public token, as Merge Link's onSuccess does.
  return layout(
    'Linked',
    `<h1>${escape(platformLabel)} linked</h1><p>You can close this window.</p><p class="hint">Public token (single use, for the app that sent you here):</p><p><code id="public-token">${escape(publicToken)}</code></p>
<script>try{window.opener&&window.opener.postMessage({type:"patchbay.mktg.linked",public_token:${JSON.stringify(publicToken)}},"*")}catch(e){}</script>`,
  );
}

function send(res: Response, status: number, html: string): void {
  res.status(status).set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer', 'X-Frame-Options': 'DENY' }).send(html);
}

/**
 * The magic-link page of the link flow: GET shows a form for the platform's credentials, POST checks
 * and stores them and shows the single-use public token (handed to the opener window too).
 */
export function linkPageRouter(services: AppServices): Router {
  const router = Router();
  const unavailable = (res: Response, err: LinkPageError) => send(res, 410, layout('Link unavailable', `<h1>Link unavailable</h1><p>${escape(err.message)}</p>`));
  const forwarded = (req: express.Request) => ({
    proto: (req.headers['x-forwarded-proto'] as string | undefined)?.split(',')[0]?.trim() ?? req.protocol,
    host: (req.headers['x-forwarded-host'] as string | undefined)?.split(',')[0]?.trim() ?? req.get('host'),
  });

  // The platform's redirect back from its authorize page (registered as the OAuth app's redirect URI).
  router.get(OAUTH_CALLBACK_PATH, async (req, res, next) => {
    try {
      const { publicToken, account } = await finishOAuth(services, req.query as Record<string, unknown>);
      send(res, 200, donePage(publicToken, CREDENTIAL_FIELDS[account.platform as keyof typeof CREDENTIAL_FIELDS].label));
    } catch (err) {
      const nothingLinked = (status: number, message: string) => send(res, status, layout('Nothing was linked', `<h1>Nothing was linked</h1><p>${escape(message)}</p>`));
      if (err instanceof LinkPageError) nothingLinked(400, err.message);
      else if (err instanceof AppError) nothingLinked(err.status < 500 ? 400 : err.status, `${err.message} Open your link again to retry.`);
      else next(err);
    }
  });

  // "Sign in with <platform>": to the platform's authorize page with a PKCE challenge and a state.
  router.post('/api/mktg/v1/link/:token/oauth', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res, next) => {
    try {
      const target = await startOAuth(services, req.params.token, (req.body as Record<string, unknown> | undefined)?.platform, forwarded(req));
      res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }).redirect(303, target);
    } catch (err) {
      if (err instanceof LinkPageError) unavailable(res, err);
      else if (err instanceof AppError && err.status < 500) {
        const link = await openLinkToken(services, req.params.token).catch(() => null);
        if (link) send(res, 400, formPage(link, req.params.token, oauthPlatforms(services, link), err.message));
        else next(err);
      } else next(err);
    }
  });

  router.get('/api/mktg/v1/link/:token', async (req, res, next) => {
    try {
      const link = await openLinkToken(services, req.params.token);
      send(res, 200, formPage(link, req.params.token, oauthPlatforms(services, link)));
    } catch (err) {
      if (err instanceof LinkPageError) send(res, 410, layout('Link unavailable', `<h1>Link unavailable</h1><p>${escape(err.message)}</p>`));
      else next(err);
    }
  });
  router.post('/api/mktg/v1/link/:token', express.urlencoded({ extended: false, limit: '32kb' }), async (req, res, next) => {
    let link: LinkToken;
    try {
      link = await openLinkToken(services, req.params.token);
    } catch (err) {
      if (err instanceof LinkPageError) send(res, 410, layout('Link unavailable', `<h1>Link unavailable</h1><p>${escape(err.message)}</p>`));
      else next(err);
      return;
    }
    try {
      const { publicToken, account } = await completeLink(services, req.params.token, (req.body ?? {}) as Record<string, unknown>);
      send(res, 200, donePage(publicToken, CREDENTIAL_FIELDS[account.platform as keyof typeof CREDENTIAL_FIELDS].label));
    } catch (err) {
      if (err instanceof LinkPageError) send(res, 410, layout('Link unavailable', `<h1>Link unavailable</h1><p>${escape(err.message)}</p>`));
      else if (err instanceof AppError && err.status < 500) send(res, 400, formPage(link, req.params.token, oauthPlatforms(services, link), err.message));
      else if (err instanceof AppError) send(res, err.status, formPage(link, req.params.token, oauthPlatforms(services, link), err.message));
      else next(err);
    }
  });
  return router;
}
