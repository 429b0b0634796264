// The dealer's console: the table's pending step in words (whose card: box, hand, dealer, community; or
// whose decision), "no va más" (deal), the card entry of a live table from the keyboard (type As, Enter:
// a card the pack cannot hold is refused on the spot, under the field), a correction of the last card,
// the control procedures as a checklist in the regulation's order (what the table owes before its deal,
// each step one key press: the next one's button has the focus; the cut with who cut and the cut card's
// depth, the inspection with its jokers), the deck-change requests open at the table (a deck change names
// the one it answers), the cut card's signal, and the
// void of a round that cannot be finished: asked with its reason by one staff member, confirmed by another
// (every stake returned).

import * as api from "../api.js";
import { cardSyntax, cardText } from "../cards.js";
import { $, html, onClick, patch } from "../dom.js";
import { t } from "../i18n.js";
import { connection, whoami } from "../main.js";
import { felt, limits, pendingText } from "../felt.js";
import { TableLink } from "../live.js";

//: what the dealer may start at any time between rounds (a later shuffle, fresh decks), beside the checklist
const ANYTIME = ["shuffle", "new_pack"];

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

/** A refusal in words: the procedures' order refusals name their steps as the checklist does. */
function refusal(err) {
  const steps = (list) => (list || []).map((s) => t(`web.procedure.${s}`)).join(", ");
  if (err.key === "err.procedures.due") return t("web.dealer.due_first", { steps: steps(err.params.due) });
  if (err.key === "err.procedures.order") {
    return t("web.dealer.out_of_order", { step: steps([err.params.step]), expected: steps(err.params.expected) });
  }
  return err.message;
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
          <section class="panel console" id="console-procedures"></section>
          <section class="panel console" id="console-cards"></section>
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

  const fieldValue = (id, fallback = "") => {
    const el = $(id, root);
    return el ? el.value : fallback;
  };

  // The fields a step takes, shown with the next step of the checklist (prefilled: Enter records it).
  const stepFields = (step) => {
    if (step === "inspect") {
      return html`<div class="step-fields">
        <label for="inspect-result">${t("web.dealer.inspect_result")}</label>
        <select id="inspect-result">
          <option value="complete">${t("web.dealer.inspect_complete")}</option>
          <option value="rejected" ${fieldValue("#inspect-result") === "rejected" ? html`selected` : ""}>${t("web.dealer.inspect_rejected")}</option>
        </select>
        <label for="inspect-jokers">${t("web.dealer.inspect_jokers")}</label>
        <input id="inspect-jokers" type="number" min="0" max="32" value="${fieldValue("#inspect-jokers", "0")}" size="3" />
        <label for="inspect-reason">${t("web.dealer.inspect_reason")}</label>
        <input id="inspect-reason" value="${fieldValue("#inspect-reason")}" />
      </div>`;
    }
    if (step === "cut") {
      const holders = [...new Set(state.seats.map((s) => s.holder).filter(Boolean))];
      const depth = state.table.rules.cut_card_depth;
      const shoe = Object.prototype.hasOwnProperty.call(state.table.rules, "cut_card_depth");
      const pack = 52 * (state.table.rules.decks || 1);
      return html`<div class="step-fields">
        <label for="cut-by">${t("web.dealer.cut_by")}</label>
        <select id="cut-by">
          <option value="dealer">${t("web.dealer.cut_by_dealer")}</option>
          ${holders.map((name) => html`<option value="${name}" ${fieldValue("#cut-by") === name ? html`selected` : ""}>${name}</option>`)}
        </select>
        ${shoe
          ? html`<label for="cut-depth">${t("web.dealer.cut_depth", { lo: 40, hi: Math.floor(pack / 2) })}</label>
            <input id="cut-depth" type="number" min="40" max="${Math.floor(pack / 2)}" size="4" value="${fieldValue("#cut-depth", depth == null ? Math.floor(pack / 4) : depth)}" />`
          : html`<p class="muted">${t("web.dealer.cut_one_handed")}</p>`}
      </div>`;
    }
    if (step === "burn") {
      return html`<div class="step-fields">
        <label for="procedure-cards">${t("web.dealer.burn_cards")}</label>
        <input id="procedure-cards" placeholder="2c 9h" value="${fieldValue("#procedure-cards")}" />
      </div>`;
    }
    return "";
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
    // between rounds the checklist comes before the card entry; during a round, after it
    const cards = $("#console-cards", root);
    const want = between ? cards : cards.nextElementSibling;
    if (panel.nextElementSibling !== want && panel !== want) panel.parentNode.insertBefore(panel, want);
    const due = state.procedures_due || [];
    const requests = state.deck_change_requests || [];
    const next = between ? due[0] : null;
    patch(
      panel,
      html`<h2>${t("web.dealer.procedures")}</h2>
        ${due.length
          ? html`<p class="muted">${t("web.dealer.checklist_help")}</p>
            <ol class="checklist" id="procedure-checklist">${due.map(
              (step, i) => html`<li class="checklist__step${i === 0 ? " checklist__step--next" : ""}" data-step="${step}">
                <span class="checklist__name">${t(`web.procedure.${step}`)}</span>
                ${i === 0 && next
                  ? html`${stepFields(step)}
                    <button type="button" class="btn btn--primary" id="proc-${step}" data-procedure="${step}" aria-keyshortcuts="Enter">${t("web.dealer.step_done")} <kbd>Enter</kbd></button>`
                  : ""}
              </li>`,
            )}</ol>`
          : between
            ? html`<p class="ok" id="procedures-ready">${t("web.dealer.procedures_ready")}</p>`
            : html`<p class="muted">${t("web.dealer.procedures_in_round")}</p>`}
        ${requests.length
          ? html`<h3>${t("web.dealer.requests")}</h3>
            <ul class="requests" id="deck-requests">${requests.map(
              (r) => html`<li id="deck-request-${r.request}">${t("web.dealer.request_line", { n: r.request, by: r.by, reason: r.reason })}
                ${between ? html`<button type="button" class="btn" id="deck-change-${r.request}" data-request="${r.request}">${t("web.dealer.request_answer")}</button>` : ""}</li>`,
            )}</ul>`
          : ""}
        <details class="more-procedures" ${fieldValue("#procedure-reason") ? html`open` : ""}><summary>${t("web.dealer.more_procedures")}</summary>
          <label for="procedure-reason">${t("web.dealer.procedure_reason")}</label>
          <input id="procedure-reason" value="${fieldValue("#procedure-reason")}" />
          <div class="actions actions--wrap">
            ${(due.length ? [] : ANYTIME).map(
              (p) => html`<button type="button" class="btn" id="proc-${p}" data-procedure="${p}" ${between ? "" : html`disabled`}>${t(`web.procedure.${p}`)}</button>`,
            )}
            ${next === "deck_change" ? "" : html`<button type="button" class="btn" id="proc-deck_change" data-procedure="deck_change" ${between ? "" : html`disabled`}>${t("web.procedure.deck_change")}</button>`}
            <button type="button" class="btn" id="proc-cut_card" data-procedure="cut_card">${t("web.procedure.cut_card")}</button>
          </div>
        </details>
        <p class="field-error" id="procedure-error" role="alert">${messages.procedure}</p>
        <p class="ok" id="procedure-ok" role="status">${messages.procedureOk}</p>`,
    );
    const button = next ? $(`#proc-${next}`, root) : null;
    const typing = document.activeElement && ["INPUT", "SELECT", "TEXTAREA"].includes(document.activeElement.tagName);
    if (button && !typing && !(state.pending && state.pending.kind === "card")) button.focus();
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
    if (state && next.seq !== state.seq) messages.deal = ""; // the table moved: an old refusal no longer holds
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
      messages.deal = refusal(err);
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
  const postProcedure = async (body) => {
    try {
      link.offer(await api.post(`/api/tables/${tableId}/procedures`, body, { idem: true }));
      messages.procedure = "";
      messages.procedureOk = t("web.dealer.procedure_done", { procedure: t(`web.procedure.${body.type}`) });
      for (const id of ["#procedure-reason", "#procedure-cards", "#inspect-reason"]) if ($(id, root)) $(id, root).value = "";
    } catch (err) {
      messages.procedure = refusal(err);
      messages.procedureOk = "";
    }
    render();
  };
  onClick(root, "[data-procedure]", async (_e, el) => {
    const type = el.dataset.procedure;
    const body = { type };
    const reason = fieldValue("#procedure-reason").trim();
    if (reason) body.reason = reason;
    if (type === "burn") {
      const listed = fieldValue("#procedure-cards").split(/[\s,]+/).filter(Boolean);
      const cards = listed.map(cardSyntax);
      if (cards.some((c) => !c)) {
        messages.procedure = t("web.dealer.not_a_card", { text: listed[cards.indexOf(null)] });
        messages.procedureOk = "";
        render();
        return;
      }
      body.cards = cards;
    } else if (type === "inspect") {
      body.result = fieldValue("#inspect-result", "complete");
      body.jokers_removed = Number(fieldValue("#inspect-jokers", "0")) || 0;
      const why = fieldValue("#inspect-reason").trim();
      if (why) body.reason = why;
    } else if (type === "cut") {
      body.by = fieldValue("#cut-by", "dealer");
      const depth = fieldValue("#cut-depth");
      if (depth !== "") body.cut_card_depth = Number(depth);
    }
    await postProcedure(body);
  });
  onClick(root, "[data-request]", async (_e, el) => {
    const reason = fieldValue("#procedure-reason").trim();
    const body = { type: "deck_change", request: Number(el.dataset.request) };
    if (reason) body.reason = reason;
    await postProcedure(body);
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
