const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");

const page = (title: string, body: string) => `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem}code{background:#f3f3f3;padding:.1rem .3rem;border-radius:3px;word-break:break-all}label{display:block;margin-top:1rem}input{width:100%}button{margin-top:1rem;padding:.4rem 1rem}</style>
</head><body>${body}</body></html>`;

export function setupPage(o: { appYml: Record<string, unknown>; manifest: Record<string, unknown>; hookUrl: string; createAppUrl: string }): string {
  const name = typeof o.appYml.name === "string" ? o.appYml.name : "Open SWE";
  const description = typeof o.appYml.description === "string" ? o.appYml.description : "";
  return page(
    `Set up ${name}`,
    `<h1>Set up ${esc(name)}</h1>
<p>${esc(description)}</p>
<p>GitHub will post webhooks to <code id="webhook-url">${esc(o.hookUrl)}</code>.</p>
<form action="${esc(o.createAppUrl)}" method="post">
<input type="hidden" name="manifest" value="${esc(JSON.stringify(o.manifest))}">
<button type="submit">Register GitHub App</button>
</form>
<p>GitHub creates the app from <code>app.yml</code> and sends its credentials back here; they are saved to <code>.env</code>.
Or <a href="/probot/import">use an existing GitHub App</a>.</p>`,
  );
}

export function importPage(o: { hookUrl: string; appsUrl: string; csrf: string }): string {
  return page(
    "Use an existing GitHub App",
    `<h1>Use an existing GitHub App</h1>
<h2>1. Point its webhook here</h2>
<p>In <a href="${esc(o.appsUrl)}" target="_blank" rel="noreferrer">your app's settings</a>, replace the Webhook URL with
<code id="webhook-url">${esc(o.hookUrl)}</code></p>
<h2>2. Its credentials</h2>
<form id="f" data-csrf="${esc(o.csrf)}">
<label for="appId">App ID</label><input id="appId" required>
<label for="slug">Slug (the last part of its github.com/apps/… URL)</label><input id="slug">
<label for="whs">Webhook secret</label><input id="whs" type="password" required>
<label for="pem">Private key (.pem)</label><input id="pem" type="file" accept=".pem" required>
<button type="submit">Save to .env</button>
</form>
<p id="msg"></p>
<script>
document.getElementById("f").addEventListener("submit", async (e) => {
  e.preventDefault();
  const v = (id) => document.getElementById(id).value.trim();
  const pem = await document.getElementById("pem").files[0].text();
  const body = { appId: v("appId"), webhook_secret: v("whs"), pem, ...(v("slug") ? { slug: v("slug") } : {}) };
  const r = await fetch("/probot/import", { method: "POST", headers: { "content-type": "application/json", "x-setup-csrf": document.getElementById("f").dataset.csrf }, body: JSON.stringify(body) });
  if (r.ok) location.replace("/probot/success");
  else document.getElementById("msg").textContent = (await r.json()).error;
});
</script>`,
  );
}

export function messagePage(title: string, text: string): string {
  return page(title, `<h1>${esc(title)}</h1><p>${esc(text)}</p>`);
}
