import type { CredentialField } from '@patchbay/connector-catalog';

/** Every value placed in a page goes through this: connector data, field values and URLs included. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** What the page shows of a connector. */
export interface ConnectorView {
  name: string;
  slug: string;
  description: string;
  logoUrl: string;
}

// Inline only: the page loads nothing from elsewhere (works offline, leaks no visit to a third party).
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1d2330}
main{max-width:440px;margin:48px auto;padding:32px;background:#fff;border-radius:12px;box-shadow:0 1px 3px rgba(0,0,0,.12)}
header{display:flex;align-items:center;gap:14px;margin-bottom:20px}
.logo{width:48px;height:48px;border-radius:10px;background:#334;color:#fff;display:flex;align-items:center;justify-content:center;font-size:24px;font-weight:600;flex:none}
img.logo{background:none}
h1{font-size:20px;margin:0}
.sub{color:#5b6478;font-size:14px;margin:2px 0 0}
p{margin:0 0 16px}
label{display:block;font-weight:600;margin:14px 0 4px}
.hint{font-weight:400;color:#5b6478;font-size:13px;display:block}
input{width:100%;padding:9px 11px;border:1px solid #c4c9d4;border-radius:6px;font:inherit}
button,.button{display:inline-block;width:100%;margin-top:18px;padding:11px;border:0;border-radius:6px;background:#2456d6;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
.secondary{background:#e8ebf1;color:#1d2330}
.error{background:#fdecec;color:#8a1c1c;border-radius:6px;padding:10px 12px;margin-bottom:16px}
.ok{background:#e8f6ec;color:#1c6b34;border-radius:6px;padding:10px 12px;margin-bottom:16px}
.or{text-align:center;color:#5b6478;margin:22px 0 0;font-size:14px}
footer{margin-top:24px;color:#8a91a3;font-size:12px;text-align:center}
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
<footer>Secured by Patchbay</footer>
</main>
</body>
</html>`;
}

function logo(connector: ConnectorView): string {
  // Only an inline (data:) logo is shown as an image; a remote one would be an external asset.
  if (connector.logoUrl.startsWith('data:image/')) return `<img class="logo" src="${escapeHtml(connector.logoUrl)}" alt="">`;
  const initial = connector.name.trim().charAt(0).toUpperCase() || '?';
  return `<div class="logo" aria-hidden="true">${escapeHtml(initial)}</div>`;
}

function heading(connector: ConnectorView, subtitle: string): string {
  return `<header>${logo(connector)}<div><h1>${escapeHtml(connector.name)}</h1><p class="sub">${escapeHtml(subtitle)}</p></div></header>`;
}

function inputFor(field: CredentialField, value: string | undefined): string {
  const type = field.type === 'secret' ? 'password' : field.type === 'url' ? 'url' : 'text';
  const id = `f_${field.name}`;
  // Secrets are never written back into a re-rendered form.
  const shown = field.type === 'secret' ? '' : (value ?? '');
  return `<label for="${escapeHtml(id)}">${escapeHtml(field.label)}${field.required ? '' : ' <span class="hint">(optional)</span>'}${
    field.description ? `<span class="hint">${escapeHtml(field.description)}</span>` : ''
  }</label><input id="${escapeHtml(id)}" name="${escapeHtml(field.name)}" type="${type}" value="${escapeHtml(shown)}"${
    field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : ''
  }${field.required ? ' required' : ''} autocomplete="off">`;
}

export interface ConnectPageModel {
  connector: ConnectorView;
  /** /link/<token>, the base of the page's own actions. */
  pagePath: string;
  userName: string;
  /** OAuth 2.0 is offered: `ready` with a Connect button, or `unconfigured` with the explanation. */
  oauth?: { status: 'ready'; fields: CredentialField[] } | { status: 'unconfigured' };
  form?: { fields: CredentialField[] };
  values?: Record<string, string>;
  /** A problem with what the user submitted, shown above the forms. */
  problem?: string;
}

export function renderConnectPage(model: ConnectPageModel): string {
  const parts: string[] = [heading(model.connector, `Connect your ${model.connector.name} account`)];
  parts.push(`<p>${escapeHtml(model.userName)}, allow the agent to use ${escapeHtml(model.connector.name)} on your behalf. ${escapeHtml(model.connector.description)}</p>`);
  if (model.problem) parts.push(`<div class="error" role="alert">${escapeHtml(model.problem)}</div>`);
  if (model.oauth?.status === 'ready') {
    const fields = model.oauth.fields.map((f) => inputFor(f, model.values?.[f.name])).join('');
    parts.push(
      `<form method="get" action="${escapeHtml(model.pagePath)}/oauth/start">${fields}<button type="submit" id="connect">Connect with ${escapeHtml(model.connector.name)}</button></form>`,
    );
  } else if (model.oauth?.status === 'unconfigured') {
    parts.push(
      `<div class="error" role="alert">Signing in with ${escapeHtml(model.connector.name)} is not available yet: the organization has not configured an OAuth app for this connector. An administrator must add one with the application credentials API (POST /api/v1/application-credentials/).</div>`,
    );
  }
  if (model.form) {
    if (model.oauth) parts.push(`<p class="or">or enter a credential</p>`);
    const fields = model.form.fields.map((f) => inputFor(f, model.values?.[f.name])).join('');
    parts.push(`<form method="post" action="${escapeHtml(model.pagePath)}">${fields}<button type="submit" id="save"${model.oauth ? ' class="secondary"' : ''}>Save and connect</button></form>`);
  }
  return layout(`Connect ${model.connector.name}`, parts.join('\n'));
}

export interface MessagePageModel {
  title: string;
  message: string;
  kind: 'error' | 'ok';
  connector?: ConnectorView;
  /** A button back to the application (callback with the outcome), when there is one. */
  returnUrl?: string;
  /** A link to start over (the same magic link), when the link can still be used. */
  retryPath?: string;
}

export function renderMessagePage(model: MessagePageModel): string {
  const parts: string[] = [];
  if (model.connector) parts.push(heading(model.connector, model.title));
  else parts.push(`<header><h1>${escapeHtml(model.title)}</h1></header>`);
  parts.push(`<div class="${model.kind}" role="${model.kind === 'error' ? 'alert' : 'status'}" id="message">${escapeHtml(model.message)}</div>`);
  if (model.retryPath) parts.push(`<a class="button secondary" id="retry" href="${escapeHtml(model.retryPath)}">Try again</a>`);
  if (model.returnUrl) parts.push(`<a class="button" id="return" href="${escapeHtml(model.returnUrl)}">Return to the application</a>`);
  return layout(model.title, parts.join('\n'));
}
