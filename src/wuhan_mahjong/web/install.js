// The installable app (docs/client.md, "Installing and offline"): the service worker that
// keeps the client's files, so a phone's home-screen icon opens the client even while the
// server cannot be reached (sw.js, built by the server: server/pwa.py).

/** Whether this page is the server's client at the root of its site, where the worker
 * (/sw.js, scope "/") belongs: not a copy of the files served by another server (the
 * tests' fixture pages), not a file:// page, not a browser without service workers. */
export function installable() {
  return "serviceWorker" in navigator && /^https?:$/.test(location.protocol) &&
    new URL("./", location.href).pathname === "/";
}

/** Register the worker, where installable, once the page has loaded. A refusal (a private window, a browser that
 * turned workers off) changes nothing: the client then works online as before. */
export function registerServiceWorker() {
  if (!installable()) return;
  const register = () => {
    navigator.serviceWorker.register("/sw.js", { scope: "/", updateViaCache: "none" }).catch(() => { /* online only */ });
  };
  // after the page's own files: the worker's first install fetches them all again
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

/** Whether the service worker served this page: the one way it opens while the server is
 * away (without a worker the browser shows its own error page instead). */
export function servedByWorker() {
  return "serviceWorker" in navigator && !!navigator.serviceWorker.controller;
}
