// Sous service worker: keeps the grocery list usable in a shop with no signal.
// - A tick (POST /list/check from the page's script) that cannot reach the server is kept in
//   IndexedDB, in order, and answered 202; the queue is sent when the server answers again
//   (background sync where the browser has it, the page's "flush" otherwise). Each tick keeps
//   its Idempotency-Key, so one that reached the server before the connection dropped is
//   applied once however often it is sent.
// - Pages and assets: the network first, the last copy when offline.
"use strict";

const CACHE = "sous-v1";
const ASSETS = ["/static/app.css", "/static/app.js", "/static/icon.svg", "/manifest.webmanifest"];
const KEPT_PAGES = ["/list", "/week"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(ASSETS)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()));
});

// ---------------------------------------------------------------- the queue (IndexedDB)
function database() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open("sous", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("queue", { keyPath: "id", autoIncrement: true });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function withStore(mode, work) {
  const db = await database();
  return new Promise((resolve, reject) => {
    const transaction = db.transaction("queue", mode);
    const result = work(transaction.objectStore("queue"));
    transaction.oncomplete = () => resolve(result && "result" in result ? result.result : undefined);
    transaction.onerror = () => reject(transaction.error);
  });
}

const enqueue = (entry) => withStore("readwrite", (store) => store.add(entry));
const queued = () => withStore("readonly", (store) => store.getAll());
const dequeue = (id) => withStore("readwrite", (store) => store.delete(id));
const forgetAll = () => withStore("readwrite", (store) => store.clear());

let flushing = null;

// Sends the queue in order; stops at the first that cannot reach the server (tried again later).
function flush() {
  if (flushing) return flushing;
  flushing = (async () => {
    try {
      for (const entry of await queued()) {
        let response;
        try {
          response = await fetch(entry.url, { method: "POST", body: entry.body, headers: entry.headers, credentials: "same-origin" });
        } catch (error) {
          return; // Still offline.
        }
        if (response.status >= 500) return; // The server is up but Sous is not answering: later.
        await dequeue(entry.id); // Done, or refused for good (a 4xx would be refused again).
        const clients = await self.clients.matchAll();
        for (const client of clients) client.postMessage({ type: "sent", line: entry.line, status: response.status });
      }
    } finally {
      flushing = null;
    }
  })();
  return flushing;
}

self.addEventListener("sync", (event) => {
  if (event.tag === "sous-ticks") event.waitUntil(flush());
});

self.addEventListener("message", (event) => {
  const message = event.data || {};
  if (message.type === "flush") event.waitUntil(flush());
  if (message.type === "forget") event.waitUntil(Promise.all([forgetAll(), caches.delete(CACHE)]));
});

// ---------------------------------------------------------------- requests
async function tick(request) {
  const body = await request.clone().text();
  try {
    const response = await fetch(request);
    // Online again: whatever waited goes now, after this one.
    flush();
    return response;
  } catch (error) {
    const headers = {};
    for (const name of ["content-type", "x-sous-fetch", "idempotency-key"]) {
      const value = request.headers.get(name);
      if (value) headers[name] = value;
    }
    const line = new URLSearchParams(body).get("line") || "";
    await enqueue({ url: request.url, body, headers, line });
    if (self.registration.sync) self.registration.sync.register("sous-ticks").catch(() => {});
    return new Response(JSON.stringify({ queued: true }), { status: 202, headers: { "Content-Type": "application/json" } });
  }
}

async function networkFirst(request, keep) {
  try {
    const response = await fetch(request);
    if (keep && response.ok && response.type === "basic" && !response.redirected) {
      const cache = await caches.open(CACHE);
      await cache.put(request, response.clone());
    }
    return response;
  } catch (error) {
    const cached = await caches.match(request, { ignoreVary: true });
    if (cached) return cached;
    return new Response("<!doctype html><title>Offline</title><p>You are offline, and this page was not kept.</p>",
      { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method === "POST" && url.pathname === "/list/check" && request.headers.get("x-sous-fetch")) {
    event.respondWith(tick(request));
    return;
  }
  if (request.method === "POST" && url.pathname === "/signout") {
    event.waitUntil(Promise.all([forgetAll(), caches.delete(CACHE)]));
    return;
  }
  if (request.method !== "GET" || url.pathname === "/list/events") return;
  const keep = ASSETS.includes(url.pathname) || KEPT_PAGES.includes(url.pathname);
  event.respondWith(networkFirst(request, keep));
});

// ---------------------------------------------------------------- reminders (Web Push)
// The notifier's push carries a JSON message (docs/PROTOCOL.md, "Reminder channels").
self.addEventListener("push", (event) => {
  let message = { title: "Sous", body: "Time to log today's meals" };
  try { if (event.data) message = event.data.json(); } catch (error) { /* not JSON: the default text */ }
  event.waitUntil(self.registration.showNotification(message.title || "Sous", {
    body: message.body || "", icon: "/static/icon.svg", tag: message.date ? `reminder-${message.date}` : "sous",
    data: { url: message.url || "/diary" },
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || "/diary", self.location.origin);
  // Only this app's own pages are opened from a notification.
  const url = target.origin === self.location.origin ? target.href : new URL("/diary", self.location.origin).href;
  event.waitUntil(self.clients.openWindow(url));
});
