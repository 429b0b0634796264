// The dealer's console: the table's pending step in words (whose card: box, hand, dealer, community; or
// whose decision), "no va más" (deal), the card entry of a live table from the keyboard (type As, Enter:
// a card the pack cannot hold is refused on the spot, under the field), a correction of the last card,
// the control procedures (new pack, shuffle, cut, burn, deck change with its reason, cut card), and the
// void of a round that cannot be finished: asked with its reason by one staff member, confirmed by another
// (every stake returned).

import * as api from "../api.js";
import { cardSyntax, cardText } from "../cards.js";
import { $, html, onClick, patch } from "../dom.js";
import { t } from "../i18n.js";
import { connection, whoami } from "../main.js";
import { felt, limits, pendingText } from "../felt.js";
import { TableLink } from "../live.js";

const PROCEDURES = ["new_pack", "shuffle", "cut", "burn", "deck_change", "cut_card"];

async function picker(root) {
  root.innerHTML = `<section class="lobby"><h1 id="dealer-title"></h1><div id="dealer-tables"></div></section>`;
  const render = (tables, error) => {
    $("#dealer-title", root).textContent = t("web.dealer.title");
    patch(
      $("#dealer-tables", root),
      error
        ? html`<p class="field-error" role="alert">${error}</p>`
        : html`<ul class="table-cards">${(tables || []).map(
            (tb) => html`<li class="table-card"><h2>${tb.name}</h2>
              <p>${t(`game.${tb.game}`)} <span class="badge badge--${tb.mode}">${t(`web.mode.${tb.mode}`)}</span></p>
              <p>${limits(tb.rules)}</p>
              <p><a class="btn btn--primary" id="console-${tb.id}" href="#/dealer/${tb.id}">${t("web.dealer.open")}</a></p></li>`,
          )}</ul>`,
    );
  };
  let tables = null;
  try {
    tables = (await api.get("/api/tables")).tables;
    render(tables);
  } catch (err) {
    render(null, err.message);
  }
  return { relang: () => { $("#dealer-tables", root)._tapete = undefined; render(tables); } };
}

export async function mount(root, args) {
  if (!args.length) return picker(root);
  const tableId = Number(args[0]);
  let state = null;
  let game = null;
  let words = null;
  let entered = [];
  let enteredRound = null;
  const messages = { deal: "", card: "", correction: "", procedure: "", procedureOk: "", void: "" };

  root.innerHTML = `<section class="table-page dealer-page">
      <header class="table-head" id="dealer-head"></header>
      <div class="table-grid">
        <div class="felt-wrap" id="felt" role="region"></div>
        <aside class="side">
          <section class="panel console" id="console-now"></section>
          <section class="panel console" id="console-cards"></section>
          <section class="panel console" id="console-procedures"></section>
          <section class="panel console" id="console-void"></section>
        </aside>
      </div>
    </section>`;

  const renderHead = () => {
    if (!state) return;
    const tb = state.table;
    patch(
      $("#dealer-head", root),
      html`<div><h1>${t("web.dealer.console", { name: tb.name })}</h1>
        <p class="muted">${t(`game.${game}`)} · <span class="badge badge--${tb.mode}">${t(`web.mode.${tb.mode}`)}</span> · ${limits(tb.rules)}</p></div>
        <div class="table-head__actions"><a class="btn btn--quiet" href="#/dealer">${t("web.dealer.all")}</a></div>`,
    );
  };

  const renderNow = () => {
    const bets = state.seats.reduce((n, s) => n + s.bets.length, 0);
    patch(
      $("#console-now", root),
      html`<h2>${t("web.dealer.now")}</h2>
        <p class="pending-big" id="dealer-pending" aria-live="polite">${pendingText(game, state)}</p>
        ${state.round ? html`<p class="muted">${t("web.round.now", { round: state.round })}</p>` : ""}
        ${state.phase === "betting"
          ? html`<p>${t("web.dealer.bets", { n: bets })}</p>
            <button type="button" class="btn btn--primary" id="deal" ${bets ? "" : html`disabled`}>${t("web.dealer.deal")}</button>
            <p class="field-error" id="deal-error" role="alert">${messages.deal}</p>`
          : ""}`,
    );
  };

  const renderCards = () => {
    const panel = $("#console-cards", root);
    if (state.table.mode !== "live") {
      patch(panel, html`<h2>${t("web.dealer.cards")}</h2><p class="muted">${t("web.dealer.virtual")}</p>`);
      return;
    }
    const waiting = state.pending && state.pending.kind === "card";
    const input = $("#card-input", root);
    const typed = input ? input.value : "";
    patch(
      panel,
      html`<h2>${t("web.dealer.cards")}</h2>
        <form id="card-form" autocomplete="off">
          <label for="card-input">${t("web.dealer.card_label")}</label>
          <p class="muted" id="card-for">${waiting ? pendingText(game, state) : t("web.dealer.no_card")}</p>
          <div class="inline">
            <input id="card-input" name="card" maxlength="3" size="4" aria-describedby="card-for card-error" value="${typed}" ${waiting ? "" : html`disabled`} />
            <button type="submit" class="btn btn--primary" id="card-submit" ${waiting ? "" : html`disabled`}>${t("web.dealer.card_submit")}</button>
          </div>
          <p class="field-error" id="card-error" role="alert">${messages.card}</p>
        </form>
        ${entered.length ? html`<p>${t("web.dealer.entered")}: <span id="entered">${entered.map(cardText).join(" ")}</span></p>` : ""}
        ${state.phase === "playing" && entered.length
          ? html`<details class="correction" ${messages.correction ? html`open` : ""}><summary>${t("web.dealer.correct")}</summary>
              <form id="correction-form">
                <label for="correction-card">${t("web.dealer.correct_card")}</label>
                <input id="correction-card" maxlength="3" size="4" />
                <label for="correction-reason">${t("web.reason")}</label>
                <input id="correction-reason" />
                <button type="submit" class="btn" id="correction-submit">${t("web.dealer.correct_submit")}</button>
                <p class="field-error" id="correction-error" role="alert">${messages.correction}</p>
              </form></details>`
          : ""}`,
    );
    if (waiting && document.activeElement === document.body) $("#card-input", root).focus();
  };

  const renderProcedures = () => {
    const panel = $("#console-procedures", root);
    if (state.table.mode !== "live") {
      patch(panel, "");
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const between = state.phase === "betting";
    patch(
      panel,
      html`<h2>${t("web.dealer.procedures")}</h2>
        <form id="procedure-form">
          <label for="procedure-reason">${t("web.dealer.procedure_reason")}</label>
          <input id="procedure-reason" />
          <label for="procedure-cards">${t("web.dealer.burn_cards")}</label>
          <input id="procedure-cards" placeholder="2c 9h" />
          <div class="actions actions--wrap">${PROCEDURES.map(
            (p) => html`<button type="button" class="btn" id="proc-${p}" data-procedure="${p}" ${between || p === "cut_card" ? "" : html`disabled`}>${t(`web.procedure.${p}`)}</button>`,
          )}</div>
          <p class="field-error" id="procedure-error" role="alert">${messages.procedure}</p>
          <p class="ok" id="procedure-ok" role="status">${messages.procedureOk}</p>
        </form>`,
    );
  };

  const renderVoid = () => {
    const panel = $("#console-void", root);
    if (state.phase !== "playing") {
      patch(panel, "");
      panel.hidden = true;
      messages.void = "";
      return;
    }
    panel.hidden = false;
    const asked = state.void;
    const me = whoami();
    const mine = asked && me && asked.requested_by === me.name;
    const typed = $("#void-reason", root) ? $("#void-reason", root).value : "";
    patch(
      panel,
      html`<h2>${t("web.dealer.void")}</h2>
        ${!asked
          ? html`<p class="muted">${t("web.dealer.void_help")}</p>
            <form id="void-form" autocomplete="off">
              <label for="void-reason">${t("web.reason")}</label>
              <input id="void-reason" value="${typed}" />
              <button type="submit" class="btn" id="void-ask">${t("web.dealer.void_ask")}</button>
            </form>`
          : html`<p id="void-waiting" role="status">${t("web.dealer.void_waiting", { name: asked.requested_by, reason: asked.reason })}</p>
            ${mine
              ? html`<p class="muted">${t("web.dealer.void_second")}</p>`
              : html`<button type="button" class="btn btn--primary" id="void-confirm">${t("web.dealer.void_confirm")}</button>`}`}
        <p class="field-error" id="void-error" role="alert">${messages.void}</p>`,
    );
  };

  const render = () => {
    if (!state) return;
    renderHead();
    $("#felt", root).setAttribute("aria-label", t("web.felt"));
    patch($("#felt", root), felt({ game, me: null, canBet: false, info: null, words, errors: {} }, state));
    renderNow();
    renderCards();
    renderProcedures();
    renderVoid();
  };

  const onState = (next) => {
    state = next;
    game = state.table.game;
    if (state.round !== enteredRound && state.round !== null) {
      enteredRound = state.round;
      entered = [];
    }
    render();
  };
  const link = new TableLink(tableId, {
    onState,
    onStatus: (s) => connection(s === "lost" ? t("web.connection.lost") : null),
  });
  api.get(`/api/tables/${tableId}/house-rules`).then((w) => {
    words = w;
    render();
  }).catch(() => {});
  api.get(`/api/tables/${tableId}/state`).then((s) => link.offer(s)).catch((err) => {
    patch($("#felt", root), html`<p class="field-error" role="alert">${err.message}</p>`);
  });

  onClick(root, "#deal", async () => {
    try {
      link.offer(await api.post(`/api/tables/${tableId}/deal`, {}, { idem: true }));
      messages.deal = "";
    } catch (err) {
      messages.deal = err.message;
    }
    render();
  });
  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (event.target.id === "card-form") {
      const input = $("#card-input", root);
      const typed = input.value;
      const name = cardSyntax(typed);
      if (!name) {
        messages.card = t("web.dealer.not_a_card", { text: typed });
        render();
        $("#card-input", root).focus();
        return;
      }
      try {
        const next = await api.post(`/api/tables/${tableId}/cards`, { card: name }, { idem: true });
        messages.card = "";
        entered.push(name);
        // the field as it is now: a push that landed while the card was being sent drew a new one,
        // with the card still in it (Enter again would have posted it a second time)
        $("#card-input", root).value = "";
        link.offer(next);
      } catch (err) {
        messages.card = err.message;
        render();
      }
      const again = $("#card-input", root);
      if (again && !again.disabled) again.focus();
    } else if (event.target.id === "void-form") {
      try {
        await api.post(`/api/tables/${tableId}/void`, { reason: $("#void-reason", root).value }, { idem: true });
        messages.void = "";
        const field = $("#void-reason", root); // the state pushed meanwhile may have drawn the panel anew
        if (field) field.value = "";
        link.offer(await api.get(`/api/tables/${tableId}/state`));
      } catch (err) {
        messages.void = err.message;
      }
      render();
    } else if (event.target.id === "correction-form") {
      const name = cardSyntax($("#correction-card", root).value);
      try {
        if (!name) throw new Error(t("web.dealer.not_a_card", { text: $("#correction-card", root).value }));
        const next = await api.post(`/api/tables/${tableId}/corrections`, { card: name, reason: $("#correction-reason", root).value }, { idem: true });
        entered[entered.length - 1] = name;
        messages.correction = "";
        link.offer(next);
      } catch (err) {
        messages.correction = err.message;
        render();
      }
    }
  });
  onClick(root, "#void-confirm", async () => {
    try {
      link.offer(await api.post(`/api/tables/${tableId}/void/confirm`, {}, { idem: true }));
      messages.void = "";
    } catch (err) {
      messages.void = err.message;
    }
    render();
  });
  onClick(root, "[data-procedure]", async (_e, el) => {
    const type = el.dataset.procedure;
    const body = { type };
    const reason = $("#procedure-reason", root).value.trim();
    if (reason) body.reason = reason;
    if (type === "burn") {
      const listed = $("#procedure-cards", root).value.split(/[\s,]+/).filter(Boolean);
      const cards = listed.map(cardSyntax);
      if (cards.some((c) => !c)) {
        messages.procedure = t("web.dealer.not_a_card", { text: listed[cards.indexOf(null)] });
        messages.procedureOk = "";
        render();
        return;
      }
      body.cards = cards;
    }
    try {
      link.offer(await api.post(`/api/tables/${tableId}/procedures`, body, { idem: true }));
      messages.procedure = "";
      messages.procedureOk = t("web.dealer.procedure_done", { procedure: t(`web.procedure.${type}`) });
      $("#procedure-reason", root).value = "";
      $("#procedure-cards", root).value = "";
    } catch (err) {
      messages.procedure = err.message;
      messages.procedureOk = "";
    }
    render();
  });

  return {
    destroy: () => {
      link.close();
      connection(null);
    },
    relang: () => {
      for (const el of root.querySelectorAll("[id]")) el._tapete = undefined;
      render();
    },
  };
}
