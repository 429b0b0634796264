// The page: one shell (top bar with the roles' consoles, the language switch, who is logged in), a
// hash router (#/lobby, #/table/3, #/dealer/3, #/cashier, #/inspector, #/admin), and the view of the
// route. Every view is a module with mount(root, params) -> {destroy?, relang?}.

import * as api from "./api.js";
import * as protection from "./protection.js";
import { $, html, onClick, patch } from "./dom.js";
import { lang, money, onLang, setLang, t } from "./i18n.js";

const VIEWS = {
  login: () => import("./views/login.js"),
  lobby: () => import("./views/lobby.js"),
  table: () => import("./views/table.js"),
  dealer: () => import("./views/dealer.js"),
  cashier: () => import("./views/cashier.js"),
  inspector: () => import("./views/inspector.js"),
  admin: () => import("./views/admin.js"),
  myplay: () => import("./views/myplay.js"),
};

/** The consoles each role may open (what the API lets it do, server.md's roles). */
const NAV = {
  player: ["lobby", "myplay"],
  dealer: ["lobby", "dealer"],
  cashier: ["cashier"],
  inspector: ["lobby", "inspector"],
  admin: ["lobby", "dealer", "cashier", "inspector", "admin"],
};
const HOME = { player: "lobby", dealer: "dealer", cashier: "cashier", inspector: "inspector", admin: "admin" };

let current = null;
let currentRoute = null;
let me = null;

/** Who is logged in, as GET /api/me says (name, role, balance for players). */
export function whoami() {
  return me;
}

/** A newer balance for the top bar (a table's state carries it). */
export function setBalance(balance, available) {
  if (!me || me.role !== "player") return;
  const moved = me.balance !== balance || me.available !== available;
  me.balance = balance;
  me.available = available;
  renderWho();
  if (moved) protection.refreshLater(); // the session's wagers and net in view follow the chips

}

function parse(hash) {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  return { name: parts[0] || "", args: parts.slice(1) };
}

export function go(path) {
  if (window.location.hash === `#${path}`) route();
  else window.location.hash = path;
}

function renderNav() {
  const nav = $("#nav");
  nav.setAttribute("aria-label", t("web.nav.label"));
  if (!me) {
    patch(nav, "");
    return;
  }
  const here = currentRoute ? currentRoute.name : "";
  patch(
    nav,
    html`${(NAV[me.role] || []).map(
      (name) =>
        html`<a href="#/${name}" id="nav-${name}" class="nav__link${here === name || (name === "lobby" && here === "table") ? " nav__link--here" : ""}"
          ${here === name ? html`aria-current="page"` : ""}>${t(`web.nav.${name}`)}</a>`,
    )}`,
  );
}

function renderWho() {
  const box = $("#whoami");
  if (!me) {
    patch(box, "");
    return;
  }
  patch(
    box,
    html`<span class="whoami__name">${me.name}</span>
      <span class="whoami__role">${t(`web.role.${me.role}`)}</span>
      ${me.role === "player"
        ? html`<span class="whoami__balance" id="my-balance" aria-label="${t("web.me.balance")}">${money(me.balance ?? 0)}</span>`
        : ""}
      <button type="button" class="btn btn--small btn--quiet" id="logout">${t("web.logout")}</button>`,
  );
}

function renderChrome() {
  document.title = t("web.title");
  $(".skip").textContent = t("web.skip");
  $("#lang-switch").setAttribute("aria-label", t("web.lang.label"));
  for (const button of document.querySelectorAll("#lang-switch button")) {
    button.setAttribute("aria-pressed", button.dataset.lang === lang() ? "true" : "false");
    button.title = t(`web.lang.${button.dataset.lang}`);
  }
  $("#dialog-close").setAttribute("aria-label", t("web.close"));
  renderNav();
  renderWho();
}

/** Show the connection banner (null hides it). */
export function connection(text) {
  const bar = $("#connection");
  if (text) {
    bar.textContent = text;
    bar.hidden = false;
  } else {
    bar.hidden = true;
    bar.textContent = "";
  }
}

/** Open the page's dialog with a title and body (HTML from `html`). */
export function dialog(title, body) {
  const box = $("#dialog");
  patch($("#dialog-body"), html`<h2 id="dialog-title">${title}</h2>${body}`);
  if (!box.open) box.showModal();
}

let routing = 0;

async function route() {
  const turn = ++routing;
  const next = parse(window.location.hash);
  if (current && current.destroy) current.destroy();
  current = null;
  connection(null);
  const main = $("#main");
  if (!api.token()) {
    me = null;
    next.name = "login";
  } else if (!me) {
    try {
      me = await api.get("/api/me");
      protection.start(me);
    } catch (err) {
      me = null;
      next.name = "login";
    }
  }
  // a console the role may not open (a player typing #/dealer/3) is not offered: his home instead; a
  // player's table (#/table/N) is open to every role that may read a table
  const allowed = me && ((NAV[me.role] || []).includes(next.name) || (next.name === "table" && me.role !== "cashier"));
  if (me && (next.name === "" || next.name === "login" || !VIEWS[next.name] || !allowed)) {
    const home = HOME[me.role] || "lobby";
    window.history.replaceState(null, "", `#/${home}`);
    next.name = home;
    next.args = [];
  }
  currentRoute = next;
  renderChrome();
  const loader = VIEWS[next.name];
  const module = await loader();
  if (turn !== routing) return; // another route began meanwhile
  // a fresh root per view: a view's late answers (a fetch that returns after the route changed) write
  // into its own detached root, never into the next view's
  const root = document.createElement("div");
  root.className = `view view--${next.name}`;
  main.replaceChildren(root);
  current = (await module.mount(root, next.args)) || {};
}

async function boot() {
  await setLang(lang());
  onLang(() => {
    renderChrome();
    protection.relang();
    if (current && current.relang) current.relang();
    else route();
  });
  onClick(document, "#lang-switch button", (_e, button) => setLang(button.dataset.lang));
  onClick(document, "#logout", async () => {
    await api.logout();
  });
  protection.wire(() => api.logout());
  api.onLoggedOut(() => {
    me = null;
    protection.stop();
    go("/login");
  });
  window.addEventListener("hashchange", route);
  await route();
}

/** After a login: forget the previous user, go to the role's home. */
export async function loggedIn() {
  me = await api.get("/api/me");
  protection.start(me); // the previous login, the session's time and money, the reality checks
  go(`/${HOME[me.role] || "lobby"}`);
}

boot();
