// Sous web app: small enhancements over pages that work without script.
// - the grocery list: one-tap ticks sent in the background, queued by the service worker while
//   offline and sent once when back (each tick carries its own idempotency key), and live
//   updates from the server's event stream when someone else in the household ticks;
// - the week: drag a meal onto another slot to move it (the Move menu does the same without script);
// - cook mode: arrow keys and space for the steps, timers, and the screen kept awake.
"use strict";

(function () {
  const ready = (fn) => (document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", fn) : fn());

  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("/sw.js").catch(() => {});
  }

  function formToken(root) {
    const field = (root || document).querySelector("input[name=csrf]");
    return field ? field.value : "";
  }

  function randomKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function showError(message) {
    let box = document.getElementById("script-error");
    if (!box) {
      box = document.createElement("p");
      box.id = "script-error";
      box.className = "error";
      box.setAttribute("role", "alert");
      document.querySelector("main").prepend(box);
    }
    box.textContent = message;
  }

  // ---------------------------------------------------------------- the grocery list
  function setupList(list) {
    const pending = new Map(); // line id -> checked, ticks not yet confirmed by the server
    let version = Number(list.dataset.version || "0");
    let banner = null;
    let flushTimer = null;

    function updateBanner() {
      const offline = !navigator.onLine || pending.size > 0;
      if (offline && !banner) {
        banner = document.createElement("p");
        banner.className = "offline-banner";
        banner.setAttribute("role", "status");
        document.body.append(banner);
      }
      if (banner) {
        if (!offline) {
          banner.remove();
          banner = null;
        } else {
          banner.textContent = pending.size > 0
            ? `Offline: ${pending.size} tick${pending.size === 1 ? "" : "s"} waiting to be sent.`
            : "Offline: ticks are kept and sent when you are back online.";
        }
      }
    }

    function show(item, checked, isPending) {
      item.classList.toggle("checked", checked);
      item.classList.toggle("pending", isPending);
      const button = item.querySelector(".tick-button");
      if (button) button.setAttribute("aria-pressed", checked ? "true" : "false");
      const next = item.querySelector("input[name=checked]");
      if (next) next.value = checked ? "0" : "1";
    }

    function applyPending() {
      for (const [line, checked] of pending) {
        const item = list.querySelector(`li.line[data-line="${CSS.escape(line)}"]`);
        if (item) show(item, checked, true);
      }
    }

    function scheduleFlush() {
      if (flushTimer || pending.size === 0) return;
      flushTimer = setInterval(() => {
        if (pending.size === 0) {
          clearInterval(flushTimer);
          flushTimer = null;
          return;
        }
        if (navigator.serviceWorker && navigator.serviceWorker.controller) {
          navigator.serviceWorker.controller.postMessage({ type: "flush" });
        }
      }, 3000);
    }

    async function tick(form) {
      const item = form.closest("li.line");
      const line = form.querySelector("input[name=line]").value;
      const checked = form.querySelector("input[name=checked]").value === "1";
      const key = randomKey();
      show(item, checked, true);
      pending.set(line, checked);
      const body = new URLSearchParams({ csrf: formToken(form), line, checked: checked ? "1" : "0" });
      let response;
      try {
        response = await fetch("/list/check", {
          method: "POST",
          body,
          credentials: "same-origin",
          headers: { "X-Sous-Fetch": "1", "Idempotency-Key": key, "Content-Type": "application/x-www-form-urlencoded" },
        });
      } catch (error) {
        // No service worker to keep it: say so and leave the tick as it was.
        pending.delete(line);
        show(item, !checked, false);
        showError("No connection: the tick was not saved. Try again when you are online.");
        updateBanner();
        return;
      }
      if (response.status === 202) {
        // The service worker queued it; it sends it when the server answers again.
        updateBanner();
        scheduleFlush();
        return;
      }
      if (response.ok) {
        pending.delete(line);
        show(item, checked, false);
        updateBanner();
        return;
      }
      pending.delete(line);
      show(item, !checked, false);
      updateBanner();
      const answer = await response.json().catch(() => ({}));
      if (answer.signIn) {
        location.href = answer.signIn;
        return;
      }
      showError(answer.error || "The tick could not be saved.");
    }

    list.addEventListener("submit", (event) => {
      const form = event.target;
      if (!form.classList || !form.classList.contains("tick")) return;
      if (!navigator.serviceWorker || !navigator.serviceWorker.controller) {
        // Without a service worker controlling the page, a tick goes as a plain form (works
        // online; offline the browser says so).
        if (navigator.onLine) {
          event.preventDefault();
          tick(form);
        }
        return;
      }
      event.preventDefault();
      tick(form);
    });

    async function refresh() {
      try {
        const response = await fetch("/list?part=body", { credentials: "same-origin", headers: { "X-Sous-Fetch": "1" } });
        if (response.status === 401) {
          location.href = "/signin";
          return;
        }
        if (!response.ok) return;
        const served = Number(response.headers.get("X-List-Version") || "0");
        const html = await response.text();
        if (served < version) return;
        version = served;
        list.dataset.version = String(version);
        list.innerHTML = html;
        applyPending();
      } catch (error) {
        // Offline: the next event brings the list again.
      }
    }

    if (navigator.serviceWorker) {
      navigator.serviceWorker.addEventListener("message", (event) => {
        const message = event.data || {};
        if (message.type === "sent") {
          // The server has a queued tick: it is no longer pending.
          pending.delete(message.line);
          const item = list.querySelector(`li.line[data-line="${CSS.escape(message.line)}"]`);
          if (item) item.classList.remove("pending");
          updateBanner();
        }
      });
    }

    if (window.EventSource) {
      const stream = new EventSource(`/list/events?after=${version}`);
      stream.addEventListener("list", (event) => {
        if (Number(event.data) !== version) refresh();
      });
      stream.addEventListener("ended", (event) => {
        stream.close();
        location.href = event.data || "/signin";
      });
    }

    window.addEventListener("online", () => {
      updateBanner();
      if (navigator.serviceWorker && navigator.serviceWorker.controller) {
        navigator.serviceWorker.controller.postMessage({ type: "flush" });
      }
    });
    window.addEventListener("offline", updateBanner);
    updateBanner();
  }

  // ---------------------------------------------------------------- the week
  function setupWeek(week) {
    let dragged = null;
    // A planned meal carries "DATE SLOT"; a chosen recipe (the list under the week) "recipe:ID".
    week.addEventListener("dragstart", (event) => {
      const slot = event.target.closest && event.target.closest(".slot.planned");
      if (!slot) return;
      dragged = slot;
      slot.classList.add("dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", `${slot.dataset.date} ${slot.dataset.slot}`);
    });
    const picks = document.getElementById("picks");
    if (picks) {
      picks.addEventListener("dragstart", (event) => {
        const pick = event.target.closest && event.target.closest(".pick");
        if (!pick) return;
        dragged = pick;
        pick.classList.add("dragging");
        event.dataTransfer.effectAllowed = "copy";
        event.dataTransfer.setData("text/plain", `recipe:${pick.dataset.recipe}`);
      });
      picks.addEventListener("dragend", () => {
        if (dragged) dragged.classList.remove("dragging");
        dragged = null;
      });
    }
    week.addEventListener("dragend", () => {
      if (dragged) dragged.classList.remove("dragging");
      week.querySelectorAll(".drop-target").forEach((slot) => slot.classList.remove("drop-target"));
      dragged = null;
    });
    week.addEventListener("dragover", (event) => {
      const slot = event.target.closest && event.target.closest(".slot");
      if (!slot) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
      week.querySelectorAll(".drop-target").forEach((other) => other !== slot && other.classList.remove("drop-target"));
      slot.classList.add("drop-target");
    });
    week.addEventListener("drop", async (event) => {
      const slot = event.target.closest && event.target.closest(".slot");
      if (!slot) return;
      event.preventDefault();
      const carried = event.dataTransfer.getData("text/plain") || "";
      let path;
      let fields;
      if (carried.startsWith("recipe:")) {
        path = "/week/put";
        fields = { recipe: carried.slice(7), date: slot.dataset.date, slot: slot.dataset.slot };
      } else {
        const from = carried.split(" ");
        if (from.length !== 2 || (from[0] === slot.dataset.date && from[1] === slot.dataset.slot)) return;
        path = "/week/move";
        fields = { fromDate: from[0], fromSlot: from[1], toDate: slot.dataset.date, toSlot: slot.dataset.slot };
      }
      const body = new URLSearchParams({ csrf: week.dataset.csrf, fetch: "1", ...fields });
      try {
        const response = await fetch(path, {
          method: "POST", body, credentials: "same-origin",
          headers: { "X-Sous-Fetch": "1", "Idempotency-Key": randomKey(), "Content-Type": "application/x-www-form-urlencoded" },
        });
        if (response.ok) {
          location.reload();
          return;
        }
        const answer = await response.json().catch(() => ({}));
        if (answer.signIn) location.href = answer.signIn;
        else showError(answer.error || "The meal could not be planned there.");
      } catch (error) {
        showError("No connection: the week was not changed.");
      }
    });
  }

  // ---------------------------------------------------------------- cook mode
  function setupCook(cook) {
    document.addEventListener("keydown", (event) => {
      if (event.target.closest && event.target.closest("input, textarea, select")) return;
      let link = null;
      if (event.key === "ArrowRight" || event.key === " " || event.key === "PageDown") link = cook.querySelector("a[rel=next]");
      if (event.key === "ArrowLeft" || event.key === "PageUp") link = cook.querySelector("a[rel=prev]");
      if (link) {
        event.preventDefault();
        location.href = link.href;
      }
    });

    let wakeLock = null;
    async function keepAwake() {
      try {
        if (navigator.wakeLock && document.visibilityState === "visible") wakeLock = await navigator.wakeLock.request("screen");
      } catch (error) {
        wakeLock = null; // Not allowed here (battery saver, an older browser): the screen may dim.
      }
    }
    document.addEventListener("visibilitychange", keepAwake);
    keepAwake();

    cook.querySelectorAll(".timer").forEach((timer) => {
      const text = timer.querySelector(".timer-text");
      const start = timer.querySelector(".timer-start");
      const total = Number(timer.dataset.seconds || "0");
      if (!start || !total) return;
      start.hidden = false;
      let interval = null;
      const render = (seconds) => {
        const minutes = Math.floor(seconds / 60);
        text.textContent = `${minutes}:${String(seconds % 60).padStart(2, "0")}`;
      };
      start.addEventListener("click", () => {
        if (interval) return;
        const end = Date.now() + total * 1000;
        timer.classList.add("running");
        start.hidden = true;
        interval = setInterval(() => {
          const left = Math.max(0, Math.round((end - Date.now()) / 1000));
          render(left);
          if (left === 0) {
            clearInterval(interval);
            timer.classList.remove("running");
            timer.classList.add("done");
            text.setAttribute("aria-live", "assertive");
            text.textContent = "Time is up";
            if (navigator.vibrate) navigator.vibrate([300, 100, 300]);
          }
        }, 250);
      });
    });
  }

  ready(() => {
    const list = document.getElementById("list");
    if (list) setupList(list);
    const week = document.getElementById("week");
    if (week) setupWeek(week);
    const cook = document.getElementById("cook");
    if (cook) setupCook(cook);
    // Signing out forgets what the service worker kept for this person.
    document.querySelectorAll("form[action='/signout']").forEach((form) =>
      form.addEventListener("submit", () => {
        if (navigator.serviceWorker && navigator.serviceWorker.controller) navigator.serviceWorker.controller.postMessage({ type: "forget" });
      }));
  });
  // ---------------------------------------------------------------- reminders in this browser
  // Shown only where the browser can take pushes: subscribes with the notifier's key and
  // sends the subscription as an ordinary form post.
  ready(() => {
    const form = document.getElementById("push-subscribe");
    if (!form || !("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) return;
    form.hidden = false;
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        if ((await Notification.requestPermission()) !== "granted") return showError("Notifications are blocked for this site.");
        const registration = await navigator.serviceWorker.ready;
        const key = form.dataset.key.replace(/-/g, "+").replace(/_/g, "/");
        const bytes = Uint8Array.from(atob(key + "=".repeat((4 - (key.length % 4)) % 4)), (c) => c.charCodeAt(0));
        const subscription = (await registration.pushManager.getSubscription())
          || (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes }));
        const json = subscription.toJSON();
        for (const [name, value] of [["endpoint", json.endpoint], ["p256dh", json.keys.p256dh], ["auth", json.keys.auth]]) {
          const field = document.createElement("input");
          field.type = "hidden";
          field.name = name;
          field.value = value;
          form.append(field);
        }
        form.submit();
      } catch (error) {
        showError("This browser could not subscribe to notifications.");
      }
    });
  });
})();
