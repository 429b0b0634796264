// "Mi juego" / "My play": a player's own tools (server.md, "Player protection"). His session as the bar
// shows it; his limits — loss and wagers per day (Lima's calendar day), the session's minutes, the
// reality check's interval — each with the value in force and any raise that waits its 24 hours; and his
// self-exclusion, confirmed before it is sent, after which his session ends at once.

import * as api from "../api.js";
import { $, clock, html, patch } from "../dom.js";
import { money, moneyField, parseMoney, signed, t } from "../i18n.js";
import { refresh, span } from "../protection.js";

const FIELDS = [
  { key: "loss_per_day", money: true },
  { key: "wager_per_day", money: true },
  { key: "session_minutes", money: false },
  { key: "reality_check_minutes", money: false },
];

function shown(field, value) {
  if (value === null || value === undefined) return "";
  return field.money ? moneyField(value) : String(value);
}

function said(field, value, limits) {
  if (value === null || value === undefined) {
    return field.key === "reality_check_minutes"
      ? t("web.myplay.minutes", { n: limits.reality_check_default })
      : t("web.myplay.none");
  }
  return field.money ? money(value) : t("web.myplay.minutes", { n: value });
}

export async function mount(root) {
  let me = null;
  const messages = { limits: "", limitsOk: "", exclusion: "", excluded: null, load: "" };
  const typed = { days: "", sure: false }; // the exclusion's form as the player left it
  root.innerHTML = `<section class="myplay"><h1 id="myplay-title"></h1>
    <div class="two-col"><section class="panel" id="myplay-session"></section>
    <section class="panel" id="myplay-limits"></section></div>
    <section class="panel panel--warn" id="myplay-exclusion"></section></section>`;

  const renderSession = () => {
    if (!me) {
      patch($("#myplay-session", root), html`<p class="muted">${messages.load || t("web.loading")}</p>`);
      return;
    }
    const s = me.session;
    patch(
      $("#myplay-session", root),
      html`<h2>${t("web.myplay.session")}</h2>
        <dl class="facts">
          <dt>${t("web.myplay.started")}</dt><dd id="myplay-started">${clock(s.started_at)}</dd>
          <dt>${t("web.protection.previous_login")}</dt><dd id="myplay-previous">${s.previous_login ? clock(s.previous_login) : t("web.protection.first_login")}</dd>
          <dt>${t("web.protection.session_time")}</dt><dd>${span(Date.parse(s.now) - Date.parse(s.started_at))}</dd>
          <dt>${t("web.protection.wagered")}</dt><dd id="myplay-wagered">${money(s.wagered)}</dd>
          <dt>${t("web.protection.net")}</dt><dd id="myplay-net" class="${s.net < 0 ? "minus" : "plus"}">${signed(s.net)}</dd>
        </dl>
        <p class="muted">${t("web.myplay.day_note")}</p>`,
    );
  };

  const renderLimits = () => {
    if (!me) {
      patch($("#myplay-limits", root), "");
      return;
    }
    const limits = me.limits;
    patch(
      $("#myplay-limits", root),
      html`<h2>${t("web.myplay.limits")}</h2>
        <p class="muted">${t("web.myplay.limits_help")}</p>
        <form id="limits-form" class="stack-form" novalidate>
          ${FIELDS.map((field) => {
            const wait = limits.pending[field.key];
            return html`<label for="limit-${field.key}">${t(`web.myplay.${field.key}`)}</label>
              <input id="limit-${field.key}" inputmode="${field.money ? "decimal" : "numeric"}" value="${shown(field, limits[field.key])}"
                placeholder="${field.key === "reality_check_minutes" ? String(limits.reality_check_default) : t("web.myplay.none")}"
                aria-describedby="now-${field.key} wait-${field.key}" />
              <p class="hint" id="now-${field.key}">${t("web.myplay.in_force", { value: said(field, limits[field.key], limits) })}</p>
              <p class="hint hint--pending" id="wait-${field.key}">${wait ? t("web.myplay.pending", { value: said(field, wait.value, limits), from: clock(wait.from) }) : ""}</p>`;
          })}
          <button type="submit" class="btn btn--primary" id="limits-submit">${t("web.myplay.save")}</button>
          <p class="field-error" id="limits-error" role="alert">${messages.limits}</p>
          <p class="ok" id="limits-ok" role="status">${messages.limitsOk}</p>
        </form>`,
    );
  };

  const renderExclusion = () => {
    if (messages.excluded) {
      patch(
        $("#myplay-exclusion", root),
        html`<h2>${t("web.myplay.exclusion")}</h2><p class="ok" role="status" id="exclusion-done">${t("web.myplay.excluded", { until: clock(messages.excluded) })}</p>`,
      );
      return;
    }
    patch(
      $("#myplay-exclusion", root),
      html`<h2>${t("web.myplay.exclusion")}</h2>
        <p>${t("web.myplay.exclusion_help")}</p>
        <form id="exclusion-form" class="stack-form" novalidate>
          <label for="exclusion-days">${t("web.myplay.days")}</label>
          <input id="exclusion-days" inputmode="numeric" placeholder="30" value="${typed.days}" aria-describedby="exclusion-error" />
          <label class="check"><input type="checkbox" id="exclusion-sure" ${typed.sure ? html`checked` : ""} /> ${t("web.myplay.exclusion_sure")}</label>
          <button type="submit" class="btn btn--danger" id="exclusion-submit">${t("web.myplay.exclude")}</button>
          <p class="field-error" id="exclusion-error" role="alert">${messages.exclusion}</p>
        </form>`,
    );
  };

  const render = () => {
    $("#myplay-title", root).textContent = t("web.myplay.title");
    renderSession();
    renderLimits();
    renderExclusion();
  };

  const load = async () => {
    try {
      me = await api.get("/api/me");
      messages.load = "";
    } catch (err) {
      messages.load = err.message;
    }
    render();
  };

  const readLimits = () => {
    const body = {};
    for (const field of FIELDS) {
      const text = $(`#limit-${field.key}`, root).value.trim();
      const before = me.limits[field.key];
      const wait = me.limits.pending[field.key];
      let value = null;
      if (text) {
        value = field.money ? parseMoney(text) : Number(text);
        if (!Number.isInteger(value) || value <= 0) throw new Error(t("web.myplay.positive", { what: t(`web.myplay.${field.key}`) }));
      }
      if (value !== before || (wait && wait.value !== value)) body[field.key] = value;
    }
    return body;
  };

  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (event.target.id === "limits-form") {
      messages.limits = messages.limitsOk = "";
      try {
        const body = readLimits();
        const limits = await api.request("PUT", "/api/me/limits", { body });
        me.limits = limits;
        messages.limitsOk = Object.keys(limits.pending).length ? t("web.myplay.saved_pending") : t("web.myplay.saved");
        refresh(); // the reality check's interval in the bar's clock
      } catch (err) {
        messages.limits = err.message;
      }
      for (const el of root.querySelectorAll("#myplay-limits [id]")) el._tapete = undefined;
      $("#myplay-limits", root)._tapete = undefined;
      renderLimits();
      return;
    }
    if (event.target.id === "exclusion-form") {
      messages.exclusion = "";
      typed.days = $("#exclusion-days", root).value.trim();
      typed.sure = $("#exclusion-sure", root).checked;
      const days = Number(typed.days);
      if (!Number.isInteger(days) || days < 1 || days > 3650) {
        messages.exclusion = t("web.myplay.days_range");
      } else if (!typed.sure) {
        messages.exclusion = t("web.myplay.exclusion_confirm");
      } else {
        try {
          const out = await api.post("/api/me/exclusion", { days });
          messages.excluded = out.until;
        } catch (err) {
          messages.exclusion = err.message;
        }
      }
      $("#myplay-exclusion", root)._tapete = undefined;
      renderExclusion();
    }
  });

  render();
  await load();
  return {
    relang: () => {
      for (const el of root.querySelectorAll("[id]")) el._tapete = undefined;
      render();
    },
  };
}
