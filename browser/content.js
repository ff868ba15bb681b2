// Waypost's content script: a user's plain left click on a link to another site, whose host an
// installed app may own, goes to that app (Safari's universal links); every other click, and every
// click a page script makes, is left alone. Hosts no app owns are decided here, with no message.
"use strict";
(() => {
  const api = globalThis.browser ?? globalThis.chrome;
  /** Host patterns ("shop.example", "*.shop.example") whose links an app may own. */
  let owned = [];
  /** Domains the user keeps in the browser ("Keep opening … in the browser"). */
  let kept = new Set();

  let loaded = false;
  const ready = api.storage.local.get(["owned", "kept"]).then((lists) => {
    owned = lists.owned ?? [];
    kept = new Set(lists.kept ?? []);
    loaded = true;
  });
  api.storage.onChanged.addListener((changes, area) => {
    if (area !== "local") return;
    if (changes.owned) owned = changes.owned.newValue ?? [];
    if (changes.kept) kept = new Set(changes.kept.newValue ?? []);
  });

  /** As Waypost matches a claim: the host itself, any subdomain for "*.domain", any host for "*". */
  function covers(pattern, host) {
    if (pattern === "*") return true;
    return pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern;
  }

  function mayBeOwned(host) {
    return !kept.has(host) && owned.some((pattern) => covers(pattern, host));
  }

  /** Same site, as Safari keeps a tap within the site: the same host, or one a subdomain of the other. */
  function sameSite(a, b) {
    return a === b || a.endsWith("." + b) || b.endsWith("." + a);
  }

  /** The link a click is on, through shadow roots; nil for anything else. */
  function linkOf(event) {
    for (const node of event.composedPath()) {
      if ((node instanceof HTMLAnchorElement || node instanceof HTMLAreaElement) && node.hasAttribute("href")) return node;
    }
    return null;
  }

  /** Whether the link opens in this frame: no target the page chose for another window or frame. */
  function opensHere(link) {
    const target = (link.getAttribute("target") ?? document.querySelector("base[target]")?.getAttribute("target") ?? "").toLowerCase();
    return target === "" || target === "_self" || (window === window.top && (target === "_top" || target === "_parent"));
  }

  // The bubbling phase on window: after the page's own handlers, so a link the page handles itself
  // (preventDefault, as single-page apps do) is left to the page.
  window.addEventListener("click", (event) => {
    if (!event.isTrusted || event.defaultPrevented) return;
    if (event.button !== 0 || event.ctrlKey || event.shiftKey || event.altKey || event.metaKey) return;
    const link = linkOf(event);
    if (!link || link.hasAttribute("download") || !opensHere(link)) return;
    let url;
    try { url = new URL(link.href); } catch { return; }
    if (url.protocol !== "https:" && url.protocol !== "http:") return;
    if (sameSite(location.hostname, url.hostname)) return;
    if (loaded && !mayBeOwned(url.hostname)) return;

    // The decision needs Waypost (or, in a page's first moments, the lists): hold the navigation,
    // and make it ourselves unless an app took the link.
    event.preventDefault();
    const proceed = () => location.assign(url.href);
    ready.then(() => {
      if (!mayBeOwned(url.hostname)) return proceed();
      api.runtime.sendMessage({ type: "open", url: url.href }).then(
        (reply) => { if (!reply || reply.opened !== true) proceed(); },
        proceed);
    }, proceed);
  });
})();
