// Player protection on the page (server.md, "Player protection"; docs/protection.md): for a logged-in
// player, a bar always in view under the top bar with the previous login, the session's time (ticking),
// what he wagered and his net since the session began; and the reality check every N minutes of the
// session (his own interval, 60 by default): a modal dialog that keeps the whole page inert (no bet, no
// decision) until he acknowledges it, or leaves. The figures are read again when his chips move (a
// table's push) and at each reality check, never on a timer (its requests would keep an idle session
// open). The session's time counts from the server's `started_at`, anchored once to this browser's clock
// (so a page reloaded mid-session shows the same).

import * as api from "./api.js";
import { $, clock, html, onClick, patch } from "./dom.js";
import { money, signed, t } from "./i18n.js";

let me = null; // GET /api/me of the player (null: nobody, or staff)
let anchor = null; // the browser's time (ms) at which the session began
let ticker = null;
let refreshSoon = null;
let showing = false;

function interval() {
  const limits = (me && me.limits) || {};
  return (limits.reality_check_minutes || limits.reality_check_default || 60) * 60000;
}

function ackKey() {
  return `tapete.reality.${me.session.started_at}`;
}

/** How many reality checks the player acknowledged in this session (kept for a reload). */
function acknowledged() {
  return Number(sessionStorage.getItem(ackKey()) || "0");
}

function elapsed() {
  return anchor === null ? 0 : Math.max(0, Date.now() - anchor);
}

/** "1 h 05 min 09 s" of a span in milliseconds. */
export function span(ms) {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n) => String(n).padStart(2, "0");
  return h ? t("web.protection.hms", { h, m: pad(m), s: pad(s % 60) }) : t("web.protection.ms", { m, s: pad(s % 60) });
}

function renderBar() {
  const bar = $("#session-bar");
  if (!bar) return;
  if (!me) {
    bar.hidden = true;
    patch(bar, "");
    return;
  }
  bar.hidden = false;
  bar.setAttribute("aria-label", t("web.protection.bar"));
  const s = me.session;
  patch(
    bar,
    html`<span class="session-bar__item" id="previous-login">${t("web.protection.previous_login")}:
        <strong>${s.previous_login ? clock(s.previous_login) : t("web.protection.first_login")}</strong></span>
      <span class="session-bar__item">${t("web.protection.session_time")}: <strong id="session-time">${span(elapsed())}</strong></span>
      <span class="session-bar__item">${t("web.protection.wagered")}: <strong id="session-wagered">${money(s.wagered)}</strong></span>
      <span class="session-bar__item">${t("web.protection.net")}: <strong id="session-net" class="${s.net < 0 ? "minus" : "plus"}">${signed(s.net)}</strong></span>
      <a class="session-bar__item session-bar__link" href="#/myplay" id="session-myplay">${t("web.nav.myplay")}</a>`,
  );
}

function tick() {
  if (!me) return;
  const time = $("#session-time");
  if (time) time.textContent = span(elapsed());
  const due = Math.floor(elapsed() / interval());
  if (due > acknowledged() && !showing) showCheck(due);
}

async function showCheck(due) {
  showing = true;
  await refresh();
  if (!me) {
    showing = false;
    return;
  }
  const box = $("#reality");
  const s = me.session;
  patch(
    $("#reality-body"),
    html`<h2 id="reality-title">${t("web.protection.reality_title")}</h2>
      <p id="reality-text">${t("web.protection.reality_text", { time: span(elapsed()) })}</p>
      <dl class="reality__figures">
        <dt>${t("web.protection.wagered")}</dt><dd id="reality-wagered">${money(s.wagered)}</dd>
        <dt>${t("web.protection.net")}</dt><dd id="reality-net" class="${s.net < 0 ? "minus" : "plus"}">${signed(s.net)}</dd>
      </dl>
      <p class="muted">${t("web.protection.reality_help")}</p>
      <div class="reality__actions">
        <button type="button" class="btn btn--primary" id="reality-continue" data-due="${due}">${t("web.protection.reality_continue")}</button>
        <a class="btn" href="#/myplay" id="reality-myplay">${t("web.protection.reality_limits")}</a>
        <button type="button" class="btn btn--quiet" id="reality-leave">${t("web.logout")}</button>
      </div>`,
  );
  if (!box.open) box.showModal();
  $("#reality-continue").focus();
}

function closeCheck(due) {
  sessionStorage.setItem(ackKey(), String(due));
  const box = $("#reality");
  if (box.open) box.close();
  showing = false;
}

/** Read the player's session and limits again (a bet settled, a limit changed). */
export async function refresh() {
  if (!me) return;
  try {
    const fresh = await api.get("/api/me");
    if (fresh.role !== "player" || !fresh.session) return;
    me = fresh;
    renderBar();
  } catch (err) {
    // a session that ended: api.js sends the page to its login
  }
}

/** Soon (once, whatever asked in between): after a balance change pushed by a table. */
export function refreshLater() {
  if (!me || refreshSoon) return;
  refreshSoon = window.setTimeout(() => {
    refreshSoon = null;
    refresh();
  }, 1200);
}

/** Begin the bar and the reality checks for a player (`who` is GET /api/me), or stop them (null). */
export function start(who) {
  stop();
  if (!who || who.role !== "player" || !who.session) return;
  me = who;
  const began = Date.parse(me.session.started_at);
  const said = Date.parse(me.session.now || "") || began;
  anchor = Date.now() - Math.max(0, said - began);
  renderBar();
  ticker = window.setInterval(tick, 1000);
  tick();
}

export function stop() {
  me = null;
  anchor = null;
  showing = false;
  for (const id of [ticker, refreshSoon]) if (id) window.clearInterval(id);
  ticker = refreshSoon = null;
  const box = $("#reality");
  if (box && box.open) box.close();
  renderBar();
}

/** The page's language changed: the bar again (an open reality check keeps its words until closed). */
export function relang() {
  renderBar();
}

/** The reality check's buttons (once, at boot); Escape does not dismiss it. */
export function wire(logout) {
  const box = $("#reality");
  box.addEventListener("cancel", (event) => event.preventDefault());
  onClick(box, "#reality-continue", (_e, button) => closeCheck(Number(button.dataset.due)));
  onClick(box, "#reality-myplay", () => closeCheck(Math.floor(elapsed() / interval())));
  onClick(box, "#reality-leave", async () => {
    closeCheck(Math.floor(elapsed() / interval()));
    await logout();
  });
}
