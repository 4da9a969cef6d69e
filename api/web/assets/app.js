// memex viewer: small enhancements over server-rendered pages. Every
// fragment fetched here is HTML that the server rendered with escaping;
// nothing from the archive is put into the page by this script as markup.
"use strict";

function debounce(fn, ms) {
  let t;
  return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); };
}

// fragment fetches the ?frag=1 rendering of a page (errors come as a
// rendered fragment too).
async function fragment(url, signal) {
  const u = new URL(url, location.href);
  u.searchParams.set("frag", "1");
  const r = await fetch(u, { signal, credentials: "same-origin" });
  return { status: r.status, html: await r.text(), headers: r.headers };
}

// Sessions: place each session's bar on its day's timeline.
function sessionsPage() {
  for (const b of document.querySelectorAll(".bar[data-left]")) {
    b.style.left = b.dataset.left + "%";
    b.style.width = b.dataset.width + "%";
  }
}

// Session: expand an entry in place; follow the session while it grows.
function sessionPage() {
  const steps = document.getElementById("steps");
  if (!steps) return;
  steps.addEventListener("toggle", async (ev) => {
    const d = ev.target;
    if (!(d instanceof HTMLDetailsElement) || !d.open || d.dataset.loaded) return;
    d.dataset.loaded = "1";
    const box = d.querySelector(".peek");
    box.textContent = "loading…";
    try {
      box.innerHTML = (await fragment(d.dataset.peek)).html;
    } catch (e) {
      box.textContent = "could not load: " + e;
    }
  }, true);
  if (!steps.dataset.live) return;
  const poll = Number(steps.dataset.poll) || 2000;
  const tick = async () => {
    if (document.visibilityState === "visible") {
      try {
        const u = new URL(steps.dataset.live, location.href);
        u.searchParams.set("after", steps.dataset.after);
        const r = await fragment(u);
        const n = r.headers.get("X-Memex-Entries");
        if (r.status === 200 && n && Number(n) > Number(steps.dataset.after)) {
          const tmp = document.createElement("template");
          tmp.innerHTML = r.html;
          for (const li of tmp.content.querySelectorAll("li.step")) li.classList.add("new");
          steps.append(tmp.content);
          steps.dataset.after = n;
          const c = document.getElementById("count");
          if (c) c.textContent = Number(n).toLocaleString("en");
        }
      } catch (e) { /* the server may be restarting: try again later */ }
    }
    setTimeout(tick, poll);
  };
  setTimeout(tick, poll);
}

// Entry: mark a line range, keep it in the address (#L120-L140), and offer
// its link and the memex show command that prints the same lines.
function entryPage() {
  const code = document.getElementById("code");
  if (!code) return;
  const id = code.dataset.id, from = Number(code.dataset.from), to = Number(code.dataset.to);
  const pageLines = Number(code.dataset.page);
  let anchor = 0;
  const parse = () => {
    const m = /^#L(\d+)(?:-L?(\d+))?$/.exec(location.hash);
    if (!m) return null;
    let a = Number(m[1]), b = Number(m[2] || m[1]);
    if (b < a) [a, b] = [b, a];
    return [a, b];
  };
  const show = (range, scroll) => {
    for (const el of code.querySelectorAll(".line.sel")) el.classList.remove("sel");
    const box = document.getElementById("range");
    if (!range) { box.hidden = true; return; }
    const [a, b] = range;
    for (let n = Math.max(a, from); n <= Math.min(b, to); n++) {
      const el = document.getElementById("L" + n);
      if (el) el.classList.add("sel");
    }
    const link = new URL(location.pathname + "#L" + a + (b > a ? "-L" + b : ""), location.href).href;
    box.hidden = false;
    document.getElementById("range-lines").textContent = a + "-" + b;
    document.getElementById("range-link").href = link;
    document.getElementById("range-link").textContent = link;
    document.getElementById("range-cmd").textContent = "memex show " + id + " --lines " + a + ":" + b;
    if (scroll) {
      const el = document.getElementById("L" + Math.max(a, from));
      if (el) el.scrollIntoView({ block: "center" });
    }
  };
  const range = parse();
  if (range && (range[0] < from || range[0] > to)) {
    // The range starts on another page of the entry: go there.
    const start = Math.max(1, range[0] - Math.floor(pageLines / 4));
    location.replace(location.pathname + "?from=" + start + location.hash);
    return;
  }
  show(range, true);
  code.addEventListener("click", (ev) => {
    const a = ev.target.closest("a.ln");
    if (!a) return;
    ev.preventDefault();
    const n = Number(a.dataset.n);
    let r = [n, n];
    if (ev.shiftKey && anchor) r = [Math.min(anchor, n), Math.max(anchor, n)];
    else anchor = n;
    history.replaceState(null, "", location.pathname + location.search + "#L" + r[0] + (r[1] > r[0] ? "-L" + r[1] : ""));
    show(r, false);
  });
  window.addEventListener("hashchange", () => show(parse(), true));
  const copy = (btn, text) => {
    navigator.clipboard.writeText(text()).then(() => { btn.textContent = "copied"; }, () => { btn.textContent = "copy failed"; });
  };
  document.getElementById("copy-link").addEventListener("click", (e) => copy(e.target, () => document.getElementById("range-link").href));
  document.getElementById("copy-cmd").addEventListener("click", (e) => copy(e.target, () => document.getElementById("range-cmd").textContent));
}

// Search: search as the user types.
function searchPage() {
  const form = document.getElementById("search-form");
  if (!form) return;
  const results = document.getElementById("results");
  let ctl;
  const run = debounce(async () => {
    const params = new URLSearchParams(new FormData(form));
    for (const [k, v] of [...params]) if (!v) params.delete(k);
    const url = "/search" + (params.toString() ? "?" + params : "");
    history.replaceState(null, "", url);
    if (ctl) ctl.abort();
    ctl = new AbortController();
    try {
      const r = await fragment(url, ctl.signal);
      results.innerHTML = r.html;
    } catch (e) {
      if (e.name !== "AbortError") results.textContent = "search failed: " + e;
    }
  }, 200);
  form.addEventListener("input", run);
  form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
}

// Context: move the budget, see what an agent would hold.
function contextPage() {
  const form = document.getElementById("context-form");
  if (!form) return;
  const slider = document.getElementById("budget"), out = document.getElementById("budget-value");
  const result = document.getElementById("context-result");
  let ctl;
  const run = debounce(async () => {
    const params = new URLSearchParams(new FormData(form));
    for (const [k, v] of [...params]) if (!v) params.delete(k);
    const url = "/context?" + params;
    history.replaceState(null, "", url);
    if (ctl) ctl.abort();
    ctl = new AbortController();
    try {
      result.innerHTML = (await fragment(url, ctl.signal)).html;
    } catch (e) {
      if (e.name !== "AbortError") result.textContent = "could not build the context: " + e;
    }
  }, 150);
  slider.addEventListener("input", () => { out.textContent = Number(slider.value).toLocaleString("en"); run(); });
  form.addEventListener("change", (e) => { if (e.target !== slider) run(); });
  form.addEventListener("submit", (e) => { e.preventDefault(); run(); });
}

document.addEventListener("DOMContentLoaded", () => {
  switch (document.body.dataset.page) {
    case "sessions": sessionsPage(); break;
    case "session": sessionPage(); break;
    case "entry": entryPage(); break;
    case "search": searchPage(); break;
    case "context": contextPage(); break;
  }
});
