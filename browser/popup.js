// The toolbar popup: "Open in <App>" on a page an app owns (Safari's banner), and "Keep opening
// <domain> in the browser" or its undoing, which Waypost remembers for every opener.
"use strict";
const api = globalThis.browser ?? globalThis.chrome;

async function show() {
  const [tab] = await api.tabs.query({ active: true, currentWindow: true });
  let url;
  try { url = new URL(tab?.url ?? ""); } catch { url = null; }
  const note = document.getElementById("note");
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    note.textContent = "Waypost acts on web pages only.";
    return;
  }
  const domain = url.hostname;
  const { owned = [], kept = [] } = await api.storage.local.get(["owned", "kept"]);
  const claimed = owned.some((pattern) =>
    pattern === "*" || (pattern.startsWith("*.") ? domain.endsWith(pattern.slice(1)) : domain === pattern));

  if (kept.includes(domain)) {
    button("undo", `Open ${domain} links in their app again`, () => api.runtime.sendMessage({ type: "undo-keep", domain }));
    note.textContent = `Links of ${domain} open in the browser, whoever opens them.`;
    return;
  }
  const owner = await api.runtime.sendMessage({ type: "owner", url: url.href });
  if (owner?.owned) {
    button("open", `Open in ${owner.name ?? owner.app}`, () => api.runtime.sendMessage({ type: "open", url: url.href }));
  }
  if (owner?.owned || claimed) {
    button("keep", `Keep opening ${domain} in the browser`, () => api.runtime.sendMessage({ type: "keep-in-browser", domain }));
  } else {
    note.textContent = `No app owns links of ${domain}.`;
  }
}

function button(id, label, action) {
  const element = document.getElementById(id);
  element.textContent = label;
  element.hidden = false;
  element.addEventListener("click", async () => {
    await action();
    window.close();
  });
}

show();
