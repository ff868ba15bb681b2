// Waypost's background script: the one connection to the native-messaging host (`waypost
// browser-host`), which answers from the dispatcher. It keeps the owned domains in storage for the
// content scripts, and relays their clicks and the toolbar popup's choices.
"use strict";
const api = globalThis.browser ?? globalThis.chrome;
const HOST = "io.waypost.browser_host";

let port = null;
let nextID = 1;
/** Request id → the function its reply resolves. */
const waiting = new Map();

function connect() {
  port = api.runtime.connectNative(HOST);
  port.onMessage.addListener((message) => {
    if (message.type === "owned-domains") {
      api.storage.local.set({ owned: message.domains ?? [], kept: message.kept ?? [] });
    }
    const resolve = waiting.get(message.id);
    if (resolve) {
      waiting.delete(message.id);
      resolve(message);
    }
  });
  port.onDisconnect.addListener(() => {
    const reason = api.runtime.lastError?.message ?? "the host ended";
    port = null;
    for (const resolve of waiting.values()) resolve({ type: "error", error: "host-gone", message: reason });
    waiting.clear();
  });
  ask({ type: "owned-domains" });
}

/** Sends one request to the host; resolves with its reply (an error reply if the host goes away). */
function ask(request) {
  if (!port) connect();
  const id = nextID++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    port.postMessage({ ...request, id });
  });
}

/** The toolbar popup's choices (also what the end-to-end tests call). */
function keepInBrowser(domain) { return ask({ type: "keep-in-browser", domain }); }
function undoKeep(domain) { return ask({ type: "undo-keep", domain }); }

api.runtime.onMessage.addListener((request, sender, sendResponse) => {
  const fromExtension = sender.url?.startsWith(api.runtime.getURL(""));
  const url = typeof request?.url === "string" ? request.url : null;
  const domain = typeof request?.domain === "string" ? request.domain : null;
  let reply;
  // A page's content script may only ask to open the link it was clicked on.
  if (request?.type === "open" && url) reply = ask({ type: "open", url });
  else if (fromExtension && request?.type === "owner" && url) reply = ask({ type: "owner", url });
  else if (fromExtension && request?.type === "keep-in-browser" && domain) reply = keepInBrowser(domain);
  else if (fromExtension && request?.type === "undo-keep" && domain) reply = undoKeep(domain);
  else return false;
  reply.then(sendResponse);
  return true;
});

connect();
