import type { ClientRecord, PendingAuthorization } from './proxy-records';
import { isLoopbackHost } from './redirect-uris';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The consent page: who asks (name, client_id, where the answer goes) and for what, with approve and deny. */
export function consentPage(client: ClientRecord, pending: PendingAuthorization, requestId: string, action: string): string {
  const redirect = new URL(pending.redirectUri);
  const host = redirect.host || redirect.protocol;
  const local = redirect.protocol === 'http:' && isLoopbackHost(redirect.hostname);
  const scopes = pending.scopes.length ? pending.scopes.map((s) => `<li><code>${escape(s)}</code></li>`).join('') : '<li>basic access</li>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Authorize ${escape(client.client_name ?? client.client_id)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}code{word-break:break-all}.warn{color:#a40}button{margin-right:1rem;padding:.5rem 1rem}</style></head>
<body><h1>Authorize ${escape(client.client_name ?? 'an MCP client')}</h1>
<p>Client <code>${escape(client.client_id)}</code> asks to access <code>${escape(pending.resource)}</code> on your behalf.</p>
<p>You will be sent back to <strong>${escape(host)}</strong>.</p>
${local ? '<p class="warn">This client receives the answer on this computer (localhost): approve only if you started this sign-in yourself.</p>' : ''}
<p>Permissions:</p><ul>${scopes}</ul>
<form method="post" action="${escape(action)}">
<input type="hidden" name="request" value="${escape(requestId)}"><input type="hidden" name="csrf" value="${escape(pending.csrf)}">
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
}
