// The administrator: users and their roles (create, change role, lock out), the tables (suspend, reopen,
// close, with a reason), and a new table from a game with its settings form: each setting with the
// regulation's default, amounts in soles; the server's refusals (the regulation's bounds, invalid_rules)
// are shown next to the field they concern, in the page's language.

import * as api from "../api.js";
import { $, html, onClick, patch, raw } from "../dom.js";
import { has, moneyField, parseMoney, t } from "../i18n.js";
import { limits } from "../felt.js";
import { MONEY_KEYS } from "./rules.js";

const ROLES = ["player", "dealer", "cashier", "inspector", "admin"];
const GAMES = ["blackjack", "majestic_21", "punto_y_banca", "showdown_poker"];

export function tabs(here) {
  return html`<nav class="tabs" aria-label="${t("web.admin.title")}">
    ${["tables", "users", "register"].map((k) => html`<a href="#/admin${k === "tables" ? "" : `/${k}`}" id="tab-${k}" class="tab${here === k ? " tab--here" : ""}" ${here === k ? html`aria-current="page"` : ""}>${t(`web.admin.${k}`)}</a>`)}
  </nav>`;
}

async function usersTab(root) {
  let users = [];
  const messages = { list: "", create: {}, ok: "" };
  root.innerHTML = `<section class="admin"><h1 id="admin-title"></h1><div id="admin-tabs"></div><div class="two-col">
    <section class="panel" id="admin-users"></section><section class="panel" id="admin-new-user"></section></div></section>`;
  const render = () => {
    $("#admin-title", root).textContent = t("web.admin.title");
    patch($("#admin-tabs", root), tabs("users"));
    patch(
      $("#admin-users", root),
      html`<h2>${t("web.admin.users")}</h2>${messages.list ? html`<p class="field-error" role="alert">${messages.list}</p>` : ""}
      <p class="ok" role="status">${messages.ok}</p>
      <table class="grid" id="users"><thead><tr><th scope="col">${t("web.admin.user")}</th><th scope="col">${t("web.admin.role")}</th><th scope="col">${t("web.admin.active")}</th></tr></thead>
      <tbody>${users.map((u) => html`<tr><td>${u.name}</td>
        <td><label class="sr-only" for="role-${u.name}">${t("web.admin.role_of", { user: u.name })}</label>
          <select id="role-${u.name}" data-user="${u.name}" data-field="role">${ROLES.map((r) => html`<option value="${r}" ${r === u.role ? html`selected` : ""}>${t(`web.role.${r}`)}</option>`)}</select></td>
        <td><label><input type="checkbox" id="active-${u.name}" data-user="${u.name}" data-field="active" ${u.active ? html`checked` : ""} /> <span class="sr-only">${t("web.admin.active_of", { user: u.name })}</span></label></td></tr>`)}</tbody></table>`,
    );
    const e = messages.create;
    patch(
      $("#admin-new-user", root),
      html`<h2>${t("web.admin.new_user")}</h2>
      <form id="user-form" class="stack-form" novalidate>
        <label for="new-username">${t("web.login.name")}</label><input id="new-username" autocomplete="off" aria-describedby="error-username" />
        <p class="field-error" id="error-username" role="alert">${e.username || ""}</p>
        <label for="new-password">${t("web.login.password")}</label><input id="new-password" type="password" autocomplete="new-password" aria-describedby="error-password" />
        <p class="field-error" id="error-password" role="alert">${e.password || ""}</p>
        <label for="new-role">${t("web.admin.role")}</label>
        <select id="new-role">${ROLES.map((r) => html`<option value="${r}">${t(`web.role.${r}`)}</option>`)}</select>
        <p class="field-error" id="error-role" role="alert">${e.role || ""}</p>
        <label for="new-document">${t("web.identity.document")} <span class="muted">${t("web.identity.player_only")}</span></label>
        <input id="new-document" inputmode="numeric" maxlength="8" autocomplete="off" aria-describedby="error-identity" />
        <label for="new-birth">${t("web.identity.birth_date")}</label>
        <input id="new-birth" type="date" aria-describedby="error-identity" />
        <p class="field-error" id="error-identity" role="alert">${e.identity || ""}</p>
        <button type="submit" class="btn btn--primary" id="new-user-submit">${t("web.admin.create_user")}</button>
        <p class="field-error" id="error-user" role="alert">${e.other || ""}</p>
      </form>`,
    );
  };
  const load = async () => {
    try {
      users = (await api.get("/api/users")).users;
      messages.list = "";
    } catch (err) {
      messages.list = err.message;
    }
    render();
  };
  root.addEventListener("change", async (event) => {
    const el = event.target;
    if (!el.dataset.user) return;
    const body = el.dataset.field === "role" ? { role: el.value } : { active: el.checked };
    try {
      await api.patchJson(`/api/users/${encodeURIComponent(el.dataset.user)}`, body);
      messages.ok = t("web.admin.saved", { user: el.dataset.user });
      messages.list = "";
    } catch (err) {
      messages.list = err.message;
      messages.ok = "";
    }
    await load();
  });
  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    const username = $("#new-username", root).value.trim();
    const password = $("#new-password", root).value;
    const role = $("#new-role", root).value;
    const identity = { document: $("#new-document", root).value.trim(), birth_date: $("#new-birth", root).value.trim() };
    messages.create = {};
    try {
      const body = { username, password, role };
      for (const [k, v] of Object.entries(identity)) if (v) body[k] = v;
      await api.post("/api/users", body);
      messages.ok = t("web.admin.created", { user: username, role: t(`web.role.${role}`) });
      await load();
      $("#new-username", root).value = "";
      $("#new-password", root).value = "";
      $("#new-document", root).value = "";
      $("#new-birth", root).value = "";
    } catch (err) {
      const key = err.key || "";
      const field = key.startsWith("err.protection.") ? "identity" : key.includes("password") ? "password" : key.includes("role") ? "role" : key.includes("user") || key.includes("name") ? "username" : "other";
      messages.create = { [field]: err.message };
      render();
      $("#new-username", root).value = username;
      $("#new-document", root).value = identity.document;
      $("#new-birth", root).value = identity.birth_date;
    }
  });
  render();
  await load();
  return { relang: () => { for (const el of root.querySelectorAll("[id]")) el._tapete = undefined; render(); } };
}

/** What was typed in a word-or-number setting's number field (kept when the form is drawn again). */
const typedCount = {};
const clearCounts = () => {
  for (const k of Object.keys(typedCount)) delete typedCount[k];
};

function fieldInput(key, field, value, typed) {
  const id = `set-${key}`;
  const described = `aria-describedby="error-${key} hint-${key}"`;
  if (field.type === "boolean") {
    const on = typed === undefined ? value : typed;
    return html`<input type="checkbox" id="${id}" data-key="${key}" ${on ? html`checked` : ""} ${raw(described)} />`;
  }
  if (field.enum) {
    const chosen = typed === undefined ? value : typed;
    return html`<select id="${id}" data-key="${key}" ${raw(described)}>${field.enum.map((v) => html`<option value="${v}" ${v === chosen ? html`selected` : ""}>${t(`web.${key}.${v}`)}</option>`)}</select>`;
  }
  if (field.type === "object") {
    return html`<output id="${id}">${t("web.admin.default_kept")}</output>`;
  }
  if (Array.isArray(field.type) && field.const && field.const.length) {
    // a word or a number (Punto y Banca's burn): the word's meaning in a list, the number beside it
    const chosen = typed === undefined ? value : typed;
    const word = field.const.includes(chosen) ? chosen : "fixed";
    const count = typedCount[key] ?? (Number.isInteger(chosen) ? chosen : Number.isInteger(value) ? value : "");
    return html`<select id="${id}" data-key="${key}" data-choice="1" ${raw(described)}>
        ${field.const.map((v) => html`<option value="${v}" ${v === word ? html`selected` : ""}>${t(`web.${key}.${v}`)}</option>`)}
        <option value="fixed" ${word === "fixed" ? html`selected` : ""}>${t(`web.${key}.fixed`)}</option></select>
      <label class="inline-field" for="${id}-count">${t(`web.${key}.count`)}
        <input id="${id}-count" data-count-of="${key}" inputmode="numeric" size="4" value="${count ?? ""}" ${word === "fixed" ? "" : html`disabled`} /></label>`;
  }
  const shown =
    typed !== undefined ? typed : value === null || value === undefined ? "" : MONEY_KEYS.has(key) ? moneyField(value) : String(value);
  return html`<input id="${id}" data-key="${key}" inputmode="${MONEY_KEYS.has(key) ? "decimal" : "numeric"}" value="${shown}" ${raw(described)} />`;
}

/** A form value as the API wants it (null when left empty on a setting that has a default). */
export function readField(key, field, el) {
  if (field.type === "boolean") return el.checked;
  if (el.dataset.choice) {
    if (el.value !== "fixed") return el.value;
    const count = el.parentElement.querySelector(`[data-count-of="${key}"]`);
    const text = count ? count.value.trim() : "";
    if (!/^\d+$/.test(text)) throw new Error(t("web.admin.not_a_number", { text }));
    return Number.parseInt(text, 10);
  }
  const text = el.value.trim();
  if (text === "") return undefined;
  if (field.enum) return text;
  if (MONEY_KEYS.has(key)) return parseMoney(text);
  if (Array.isArray(field.type) && !/^-?\d+$/.test(text)) return text;
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw new Error(t("web.admin.not_a_number", { text }));
  return field.type === "number" ? Number(text) : Number.parseInt(text, 10);
}

async function tablesTab(root) {
  let games = [];
  let tables = [];
  let game = "blackjack";
  let mode = "virtual";
  let errors = {};
  let typed = {}; // what the administrator wrote, kept when the form is drawn again (a refusal, a language)
  let ok = "";
  let listError = "";
  root.innerHTML = `<section class="admin"><h1 id="admin-title"></h1><div id="admin-tabs"></div><div class="two-col two-col--form">
    <section class="panel" id="admin-new-table"></section><section class="panel" id="admin-tables"></section></div></section>`;
  const info = () => games.find((g) => g.game === game);
  const keepTyped = () => {
    for (const el of root.querySelectorAll("#table-form [data-key]")) {
      typed[el.dataset.key] = el.type === "checkbox" ? el.checked : el.value;
    }
  };
  const renderForm = () => {
    const g = info();
    if (!g) return;
    const defaults = { ...g.settings, ...(g.server_settings[mode] || {}) };
    const keys = Object.keys(g.fields).filter((k) => !(mode === "live" && k === "betting_seconds"));
    patch(
      $("#admin-new-table", root),
      html`<h2>${t("web.admin.new_table")}</h2>
      <form id="table-form" class="settings-form" novalidate>
        <div class="form-row"><label for="table-game">${t("web.admin.game")}</label>
          <select id="table-game">${GAMES.map((x) => html`<option value="${x}" ${x === game ? html`selected` : ""}>${t(`game.${x}`)}</option>`)}</select></div>
        <div class="form-row"><label for="table-name">${t("web.admin.table_name")}</label>
          <input id="table-name" aria-describedby="error-name" value="${$("#table-name", root)?.value || ""}" />
          <p class="field-error" id="error-name" role="alert">${errors.name || ""}</p></div>
        <fieldset class="form-row"><legend>${t("web.admin.mode")}</legend>
          ${["virtual", "live"].map((m) => html`<label class="radio"><input type="radio" name="mode" value="${m}" id="mode-${m}" ${m === mode ? html`checked` : ""} /> ${t(`web.mode.${m}`)}</label>`)}
          <p class="field-error" id="error-mode" role="alert">${errors.mode || ""}</p></fieldset>
        <h3>${t("web.admin.settings")}</h3>
        <div class="settings-fields">
        ${keys.map((key) => {
          const field = g.fields[key];
          return html`<div class="form-row form-row--${field.type === "boolean" ? "check" : "field"}">
            <label for="set-${key}">${t(`web.setting.${key}`)}${MONEY_KEYS.has(key) ? " (S/)" : ""}</label>
            ${fieldInput(key, field, defaults[key], typed[key])}
            <p class="hint" id="hint-${key}">${t(has(`web.hint.${key}.${game}`) ? `web.hint.${key}.${game}` : `web.hint.${key}`, { game: t(`game.${game}`) })}</p>
            <p class="field-error" id="error-${key}" role="alert">${errors[key] || ""}</p>
          </div>`;
        })}
        </div>
        <button type="submit" class="btn btn--primary" id="open-table">${t("web.admin.open_table")}</button>
        <p class="field-error" id="error-table" role="alert">${errors.other || ""}</p>
        <p class="ok" role="status" id="table-ok">${ok}</p>
      </form>`,
    );
  };
  const renderList = () => {
    patch(
      $("#admin-tables", root),
      html`<h2>${t("web.admin.tables")}</h2>${listError ? html`<p class="field-error" role="alert">${listError}</p>` : ""}
      ${tables.length
        ? html`<label for="status-reason">${t("web.reason")}</label> <input id="status-reason" value="${$("#status-reason", root)?.value || ""}" />`
        : html`<p class="muted">${t("web.lobby.empty")}</p>`}
      <ul class="plain">${tables.map((tb) => html`<li class="admin-table"><strong>${tb.name}</strong>
        <span class="muted">${t(`game.${tb.game}`)} · ${t(`web.mode.${tb.mode}`)} · ${limits(tb.rules)} · ${t(`web.status.${tb.status}`)}</span>
        <span class="actions">${["open", "suspended", "closed"].filter((s) => s !== tb.status).map((s) => html`<button type="button" class="btn btn--small" id="status-${tb.id}-${s}" data-table="${tb.id}" data-status="${s}">${t(`web.admin.set_${s}`)}</button>`)}</span></li>`)}</ul>`,
    );
  };
  const render = () => {
    $("#admin-title", root).textContent = t("web.admin.title");
    patch($("#admin-tabs", root), tabs("tables"));
    renderForm();
    renderList();
  };
  const loadTables = async () => {
    try {
      tables = (await api.get("/api/tables")).tables;
      listError = "";
    } catch (err) {
      listError = err.message;
    }
    renderList();
  };
  root.addEventListener("change", (event) => {
    if (event.target.id === "table-game") {
      game = event.target.value;
      errors = {};
      typed = {};
      clearCounts();
      renderForm();
    } else if (event.target.name === "mode") {
      mode = event.target.value;
      errors = {};
      typed = {};
      clearCounts();
      renderForm();
    } else if (event.target.dataset.key) {
      typed[event.target.dataset.key] = event.target.type === "checkbox" ? event.target.checked : event.target.value;
      if (event.target.dataset.choice) renderForm(); // the number beside a word-or-number setting
    }
  });
  root.addEventListener("input", (event) => {
    if (event.target.dataset && event.target.dataset.key) typed[event.target.dataset.key] = event.target.value;
    if (event.target.dataset && event.target.dataset.countOf) typedCount[event.target.dataset.countOf] = event.target.value;
  });
  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    const g = info();
    errors = {};
    ok = "";
    keepTyped();
    const rules = {};
    for (const el of root.querySelectorAll("#table-form [data-key]")) {
      const key = el.dataset.key;
      try {
        const value = readField(key, g.fields[key], el);
        if (value !== undefined) rules[key] = value;
      } catch (err) {
        errors[key] = err.message;
      }
    }
    const name = $("#table-name", root).value;
    if (!name.trim() || name.length > 80) errors.name = t("web.admin.name_required");
    // a field the page could not read goes to the server as typed: the server refuses it too (so nothing
    // is opened), and its answer brings every other setting's refusal in the same pass
    for (const el of root.querySelectorAll("#table-form [data-key]")) {
      const key = el.dataset.key;
      if (errors[key] && !(key in rules)) rules[key] = el.value;
    }
    const mine = { ...errors };
    try {
      const table = await api.post("/api/tables", { game, name, mode, rules });
      ok = t("web.admin.opened", { name: table.name, id: table.id });
      typed = {};
      clearCounts();
      $("#table-name", root).value = "";
      await loadTables();
    } catch (err) {
      for (const p of err.problems || []) {
        const key = p.setting && g.fields[p.setting] ? p.setting : "other";
        if (mine[key]) continue; // the page's own words for what it could not read
        errors[key] = errors[key] ? `${errors[key]} ${p.message}` : p.message;
      }
      if (!err.problems || !err.problems.length) {
        const key = err.key === "err.api.table_name" ? "name" : err.key === "err.api.mode" ? "mode" : "other";
        if (!mine[key]) errors[key] = err.message;
      }
    }
    renderForm();
    const first = root.querySelector("#table-form .field-error:not(:empty)");
    if (first) {
      const input = first.parentElement.querySelector("input, select");
      if (input) input.focus();
    }
  });
  onClick(root, "[data-status]", async (_e, el) => {
    const reason = $("#status-reason", root).value.trim();
    if (!reason) {
      listError = t("web.admin.reason_required"); // suspending, reopening, closing: always with a reason
      renderList();
      const field = $("#status-reason", root);
      if (field) field.focus();
      return;
    }
    try {
      await api.patchJson(`/api/tables/${el.dataset.table}`, { status: el.dataset.status, reason });
      listError = "";
    } catch (err) {
      listError = err.message;
    }
    await loadTables();
  });
  try {
    games = (await api.get("/api/games")).games;
  } catch (err) {
    listError = err.message;
  }
  render();
  await loadTables();
  return { relang: () => { for (const el of root.querySelectorAll("[id]")) el._tapete = undefined; render(); } };
}

export function mount(root, args) {
  if (args[0] === "users") return usersTab(root);
  if (args[0] === "register") return import("./register.js").then((m) => m.mount(root, tabs));
  return tablesTab(root);
}
