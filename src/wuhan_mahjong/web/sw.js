// The service worker (docs/client.md, "Installing and offline"), served at /sw.js by the
// server (server/pwa.py), which fills in BUILD: the client's version (a hash of every file
// in web/) and the files of the "shell" (every one of them, the page as "./").
//
// It keeps the shell in a cache named after the version, filled when the worker installs,
// so the client opens while the server cannot be reached (then app.js says it is offline).
// Online nothing changes: each file still comes from the server (network first), which
// answers 304 while it is unchanged, so the page never mixes versions. It touches only
// GETs of the shell's own files: never /api, the WebSocket or any other request, and it
// writes nothing to the cache after installing. A new version (any file changed, so this
// file's bytes change) installs beside the old one, takes over at once (network first,
// that is safe) and deletes the old caches.

const BUILD = /*BUILD*/{ "version": "unbuilt", "files": [] }/*BUILD*/;
const PREFIX = "wm-shell-";
const CACHE = PREFIX + BUILD.version;
const SCOPE = new URL(self.registration.scope);
const PAGE = new URL("./", SCOPE).href;
const SHELL = new Set(BUILD.files.map((f) => new URL(f, SCOPE).href));
const NEVER = ["api", "api/", "ws", "sw.js"]; // relative to the scope: the server's, never kept

// The pages that opened from the cache: their files come from the cache first, without
// waiting for a server that did not answer the page (a worker restarted since forgets
// them, which only costs a try of the network).
const offlinePages = new Set();

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // "no-cache": each file revalidated with the server, never an older copy of the HTTP cache
    await cache.addAll([...SHELL].map((url) => new Request(url, { cache: "no-cache" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return;
  const path = url.pathname.slice(SCOPE.pathname.length);
  if (NEVER.some((p) => (p.endsWith("/") ? path.startsWith(p) : path === p))) return;
  if (request.mode === "navigate") {
    if (path === "" || path === "index.html") event.respondWith(page(event));
    return;
  }
  url.hash = "";
  if (!url.search && SHELL.has(url.href)) event.respondWith(file(event, url.href));
});

/** A kept copy, or undefined (the shell of this version only). */
async function kept(key) {
  const cache = await caches.open(CACHE);
  return cache.match(key);
}

/** The page: from the server; when it cannot be reached (or a proxy in front of it answers
 * 5xx because it is down), the kept page, and the page's files from the cache first. */
async function page(event) {
  try {
    const response = await fetch(event.request);
    if (response.status < 500) return response;
    const copy = await kept(PAGE);
    if (!copy) return response;
    offlinePages.add(event.resultingClientId);
    return copy;
  } catch (error) {
    const copy = await kept(PAGE);
    if (!copy) throw error;
    offlinePages.add(event.resultingClientId);
    return copy;
  }
}

/** A file of the shell: from the server, else the kept copy; for a page opened from the
 * cache the other way round. */
async function file(event, key) {
  if (offlinePages.has(event.clientId)) {
    const copy = await kept(key);
    if (copy) return copy;
  }
  try {
    const response = await fetch(event.request);
    if (response.status < 500) return response;
    return (await kept(key)) || response;
  } catch (error) {
    const copy = await kept(key);
    if (!copy) throw error;
    return copy;
  }
}
