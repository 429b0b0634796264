// The lobby: every table with its game, limits, free boxes, live or virtual, and whether a round is in
// play; a player's last rounds (recall) below. Refreshed every few seconds (tables change as people sit).

import * as api from "../api.js";
import { html, patch } from "../dom.js";
import { t } from "../i18n.js";
import { whoami } from "../main.js";
import { limits } from "../felt.js";
import { history } from "./history.js";

export function mount(root) {
  let tables = null;
  let error = "";
  let timer = null;
  const me = whoami();
  root.innerHTML = `<section class="lobby"><h1 id="lobby-title"></h1><div id="lobby-tables"></div></section>
    <section id="lobby-history" class="panel"></section>`;
  const list = root.querySelector("#lobby-tables");
  const recall = me && me.role === "player" ? history(root.querySelector("#lobby-history")) : null;
  if (!recall) root.querySelector("#lobby-history").remove();

  const render = () => {
    root.querySelector("#lobby-title").textContent = t("web.lobby.title");
    if (error) {
      patch(list, html`<p class="field-error" role="alert">${error}</p>`);
      return;
    }
    if (!tables) {
      patch(list, html`<p class="muted">${t("web.loading")}</p>`);
      return;
    }
    if (!tables.length) {
      patch(list, html`<p class="muted">${t("web.lobby.empty")}</p>`);
      return;
    }
    patch(
      list,
      html`<ul class="table-cards">${tables.map((table) => {
        const free = table.seats_total - table.seats_taken.length;
        const staff = me && (me.role === "dealer" || me.role === "admin");
        return html`<li class="table-card table-card--${table.game}">
          <h2><a href="#/table/${table.id}" id="open-table-${table.id}">${table.name}</a></h2>
          <p class="table-card__game">${t(`game.${table.game}`)}
            <span class="badge badge--${table.mode}">${t(`web.mode.${table.mode}`)}</span>
            ${table.status !== "open" ? html`<span class="badge badge--warn">${t(`web.status.${table.status}`)}</span>` : ""}</p>
          <p>${limits(table.rules)}</p>
          <p>${t(`web.lobby.free.${table.game === "punto_y_banca" ? "zones" : table.game === "showdown_poker" ? "positions" : "boxes"}`, { free, total: table.seats_total })}</p>
          <p class="muted">${table.status !== "open"
            ? t(`web.pending.${table.status}`)
            : table.phase === "playing"
              ? t("web.lobby.playing", { round: table.round })
              : t("web.lobby.betting")}</p>
          <p class="table-card__links">
            <a class="btn btn--primary" href="#/table/${table.id}">${t(me && me.role === "player" ? "web.lobby.sit" : "web.lobby.watch")}</a>
            ${staff ? html`<a class="btn" href="#/dealer/${table.id}">${t("web.lobby.dealer")}</a>` : ""}
          </p>
        </li>`;
      })}</ul>`,
    );
  };

  const load = async () => {
    try {
      tables = (await api.get("/api/tables")).tables;
      error = "";
    } catch (err) {
      error = err.message;
    }
    render();
  };
  render();
  load();
  timer = window.setInterval(load, 5000);
  return {
    destroy: () => window.clearInterval(timer),
    relang: () => {
      list._tapete = undefined;
      render();
      if (recall) recall.render();
    },
  };
}
