// A table, as a player sees it (and as staff watch it): the felt of its game, his balance, chips of the
// table's denominations, the regulation's offers in its order with the turn timer, back-bet requests
// for the holder to accept or refuse, each payout with its reason, his last rounds; the table's rules and
// the house's [A] choices one click away. Live: the WebSocket state, reconnected by itself.

import * as api from "../api.js";
import { card, cardText } from "../cards.js";
import { $, announce, html, onClick, patch } from "../dom.js";
import { money, moneyField, parseMoney, pick, signed, t } from "../i18n.js";
import { connection, dialog, setBalance, whoami } from "../main.js";
import { BLACKJACKS, felt, handName, limits, pendingText, seatName } from "../felt.js";
import { TableLink } from "../live.js";
import { history } from "./history.js";
import { deckRequestPanel } from "./control.js";
import { rulesDialog } from "./rules.js";

/** Chip values of a table: its minimum, then the usual casino values up to its maximum (at most six). */
export function chipValues(rules) {
  const standard = [500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 500000, 1000000];
  const min = rules.table_min;
  const out = [min];
  for (const v of standard) if (v > min && v <= rules.table_max && v % min === 0) out.push(v);
  return out.slice(0, 6);
}

/** Keys that take a play decision, from the catalog (bj.key.hit = "c" in Spanish, "h" in English). */
function shortcut(action) {
  const key = t(`bj.key.${action}`);
  return key.startsWith("bj.key.") ? null : key;
}

export async function mount(root, args) {
  const tableId = Number(args[0]);
  const me = whoami();
  const player = me && me.role === "player";
  let state = null;
  let info = null;
  let words = null;
  let amount = null;
  // what the player is typing in the amount field, until he leaves it: a push re-renders the panel
  // (another player's bet, his own seat taken) and must not put the old amount back under his fingers
  let amountText = null;
  let selected = new Set(); // Showdown: the cards chosen for the exchange
  let turnKey = null;
  let linkStatus = "connecting";
  const errors = {};
  let turnError = "";
  let chipError = "";

  root.innerHTML = `<section class="table-page">
      <header class="table-head" id="table-head"></header>
      <div class="turn-bar" id="turn-bar"></div>
      <div class="table-grid">
        <div class="felt-wrap" id="felt" role="region"></div>
        <aside class="side">
          <section class="panel" id="chips-panel"></section>
          <section class="panel" id="requests-panel" hidden></section>
          <section class="panel" id="payouts-panel"></section>
          <section class="panel" id="history-panel" hidden></section>
          <section class="panel" id="deck-request-panel" hidden></section>
        </aside>
      </div>
    </section>`;
  const recall = player ? history($("#history-panel", root)) : null;
  if (recall) $("#history-panel", root).hidden = false;
  const deckRequest = player ? deckRequestPanel($("#deck-request-panel", root), tableId) : null;

  try {
    const [games, house] = await Promise.all([api.get("/api/games"), api.get(`/api/tables/${tableId}/house-rules`)]);
    words = house;
    info = games.games.find((g) => g.game === house.game);
  } catch (err) {
    patch($("#felt", root), html`<p class="field-error" role="alert">${err.message}</p>`);
    return {};
  }
  const game = info.game;

  const ctx = () => ({ game, me: me ? me.name : null, canBet: player && state && state.phase === "betting", info, words, errors });

  // -- rendering ------------------------------------------------------------------------------------
  const renderHead = () => {
    if (!state) return;
    const tb = state.table;
    patch(
      $("#table-head", root),
      html`<div>
          <h1 id="table-title">${tb.name}</h1>
          <p class="muted">${t(`game.${game}`)} · <span class="badge badge--${tb.mode}">${t(`web.mode.${tb.mode}`)}</span> · ${limits(tb.rules)}
          ${tb.status !== "open" ? html` · <span class="badge badge--warn">${t(`web.status.${tb.status}`)}</span>` : ""}</p>
        </div>
        <div class="table-head__actions">
          <button type="button" class="btn" id="show-rules">${t("web.rules.open")}</button>
          <a class="btn btn--quiet" href="#/lobby">${t("web.back_lobby")}</a>
        </div>`,
    );
  };

  const myBox = (seat) => state.view && state.view.seats ? state.view.seats.find((s) => s.seat === seat) : null;

  const question = (p) => {
    const view = state.view;
    const box = myBox(p.seat);
    if (BLACKJACKS.has(game) && box) {
      const hand = box.hands[p.hand] || box.hands[0];
      const who = handName(game, p.seat, p.hand, box.hands.length);
      const up = view.dealer[0];
      const stateText = t("bj.hand_state", {
        who,
        cards: hand.cards.map(cardText).join(" "),
        total: hand.total,
        dealer: view.dealer.map(cardText).join(" "),
      });
      const stake = box.hands[0].stake;
      if (p.decision === "surrender") return stateText + t("bj.surrender_prompt", { half: money(Math.floor(stake / 2)) });
      if (p.decision === "insurance" && p.legal.includes("even_money")) return stateText + t("bj.even_money_prompt", { win: money(stake) });
      if (p.decision === "insurance" && up && "TJQK".includes(up[0])) return stateText + t("m21.insurance_ten_prompt", { card: cardText(up), max: money(p.max_amount || 0) });
      if (p.decision === "insurance") return stateText + t("bj.insurance_prompt", { max: money(p.max_amount || 0) });
      return stateText;
    }
    if (game === "showdown_poker" && box) {
      const base = t("sd.state", { seat: seatName(game, p.seat), cards: box.cards.map(cardText).join(" "), community: view.community.map(cardText).join(" ") });
      if (p.decision === "increment_1") return base + t("sd.increment_1_prompt", { amount: money(p.max_amount || box.bet) });
      if (p.decision === "increment_2") return base + t("sd.increment_2_prompt", { amount: money(p.max_amount || box.bet) });
      if (p.decision === "exchange") return base + t("web.sd.exchange_prompt", { max: p.max_cards || 0 });
      return base;
    }
    return "";
  };

  const decisionControls = (p) => {
    const buttons = [];
    const amountFor = p.legal.includes("double") ? "double" : p.legal.includes("insurance") ? "insurance" : null;
    let amountField = "";
    if (amountFor && p.max_amount) {
      amountField = html`<label class="inline-field" for="act-amount">${t(`web.amount.${amountFor}`, { max: money(p.max_amount) })}
        <input id="act-amount" inputmode="decimal" value="${moneyField(p.max_amount)}" size="8" /></label>`;
    }
    let exchange = "";
    if (p.legal.includes("exchange")) {
      const box = myBox(p.seat);
      exchange = html`<div class="exchange" role="group" aria-label="${t("web.sd.choose")}">
        ${(box ? box.cards : []).map((c, i) => card(c, { selected: selected.has(c), button: { id: `xc-${i}` } }))}
      </div>`;
    }
    for (const action of p.legal) {
      let label = t(`act.${action}`);
      if (action === "decline") label = t(p.decision === "exchange" ? "web.sd.keep" : "web.decline");
      if (action === "exchange") label = t("web.sd.exchange", { n: selected.size });
      if ((action === "increment_1" || action === "increment_2") && p.max_amount) label = `${label} (${money(p.max_amount)})`;
      label = label.charAt(0).toUpperCase() + label.slice(1);
      const key = p.decision === "play" ? shortcut(action) : null;
      const disabled = action === "exchange" && (selected.size === 0 || selected.size > (p.max_cards || 3));
      buttons.push(
        html`<button type="button" class="btn ${action === "decline" ? "" : "btn--primary"}" id="act-${action}" data-action="${action}"
          ${key ? html`aria-keyshortcuts="${key}"` : ""} ${disabled ? html`disabled` : ""}>${label}${key ? html` <kbd>${key}</kbd>` : ""}</button>`,
      );
    }
    return html`${exchange}${amountField}<div class="actions">${buttons}</div>`;
  };

  const remaining = () => {
    if (!state || !state.deadline) return null;
    const ms = Date.parse(state.deadline) - (Date.now() + api.skew());
    return Math.max(0, Math.ceil(ms / 1000));
  };

  const timerHtml = () => {
    const s = remaining();
    if (s === null) return "";
    const key = state.deadline_kind === "betting" ? "web.timer.betting" : "web.timer.turn";
    return html`<p class="timer" role="timer" id="timer" aria-live="off">${t(key, { s })}</p>`;
  };

  const renderTurn = () => {
    if (!state) return;
    const p = state.pending;
    const mine = p && p.kind === "decision" && me && p.holder === me.name;
    let body;
    if (mine) {
      body = html`<div class="turn turn--mine" role="region" aria-label="${t("web.turn.yours")}"
        data-turn="${state.round}:${p.seat}:${p.hand}:${p.decision}">
        <h2>${t("web.turn.yours")}: ${t(`act.${p.decision}`)}</h2>
        <p id="turn-question">${question(p)}</p>
        ${decisionControls(p)}
        ${timerHtml()}
        <p class="field-error" id="turn-error" role="alert">${turnError}</p>
      </div>`;
    } else {
      body = html`<div class="turn">
        <p id="turn-status">${pendingText(game, state)}</p>
        ${state.phase === "betting" && !state.deadline && state.table.mode === "virtual" && !state.table.rules.betting_seconds ? html`<p class="muted">${t("web.turn.dealer_deals")}</p>` : ""}
        ${timerHtml()}
      </div>`;
    }
    patch($("#turn-bar", root), body);
    const key = mine ? `${state.round}:${p.seat}:${p.hand}:${p.decision}` : null;
    if (key && key !== turnKey) {
      announce(`${t("web.turn.yours")}: ${question(p)}`);
      const first = $("#turn-bar .actions button:not([disabled])", root);
      if (first) first.focus();
    }
    turnKey = key;
  };

  const renderChips = () => {
    const panel = $("#chips-panel", root);
    if (!state) return;
    if (!player) {
      patch(panel, html`<h2>${t("web.watching.title")}</h2><p class="muted">${t("web.watching.text")}</p>`);
      return;
    }
    const chips = chipValues(state.table.rules);
    if (amount === null) amount = chips[0];
    const held = state.seats.filter((s) => s.holder === me.name).map((s) => s.seat);
    const myBets = state.seats.flatMap((s) => s.bets.filter((b) => b.player === me.name));
    const staked = myBets.reduce((sum, b) => sum + b.amount, 0);
    patch(
      panel,
      html`<h2>${t("web.chips.title")}</h2>
        <p class="balance">${t("web.me.balance")}: <strong id="balance">${money(state.me.balance)}</strong>
          · ${t("web.me.available")}: <strong id="available">${money(state.me.available)}</strong></p>
        <div class="chips" role="group" aria-label="${t("web.chips.label")}">
          ${chips.map((v, i) => html`<button type="button" class="chip chip--${i}" id="chip-${v}" data-chip="${v}"
            aria-pressed="${v === amount ? "true" : "false"}" aria-label="${t("web.chips.one", { amount: money(v) })}">${money(v).replace("S/ ", "").replace(/\.00$/, "")}</button>`)}
        </div>
        <label for="bet-amount">${t("web.chips.amount")}</label>
        <input id="bet-amount" inputmode="decimal" value="${amountText !== null ? amountText : moneyField(amount)}" />
        <p class="field-error" id="chip-error" role="alert">${chipError}</p>
        <p class="muted">${state.phase !== "betting"
          ? t("web.chips.closed")
          : held.length
            ? t("web.chips.hint")
            : state.seats.every((s) => s.holder)
              ? t("web.chips.behind")
              : t("web.chips.take")}</p>
        ${myBets.length
          ? html`<p>${t("web.chips.staked", { amount: money(staked) })}</p>
            <button type="button" class="btn btn--quiet" id="clear-bets" ${state.phase !== "betting" ? html`disabled` : ""}>${t("web.chips.clear")}</button>`
          : ""}`,
    );
  };

  const renderRequests = () => {
    const panel = $("#requests-panel", root);
    const list = state ? state.requests : [];
    panel.hidden = !list.length;
    if (!list.length) {
      patch(panel, "");
      return;
    }
    patch(
      panel,
      html`<h2>${t("web.requests.title")}</h2><ul class="requests">${list.map((r) => {
        const seat = state.seats.find((s) => s.seat === r.seat);
        const mineToAnswer = me && seat && seat.holder === me.name && r.player !== me.name;
        const text = t("web.requests.line", { player: r.player, seat: seatName(game, r.seat), spot: t(`spot.${r.spot}`), amount: money(r.amount) });
        return html`<li id="request-${r.request}"><p>${text}</p>
          ${mineToAnswer
            ? html`<button type="button" class="btn btn--primary" id="accept-${r.request}" data-answer="yes" data-request="${r.request}">${t("web.requests.accept")}</button>
              <button type="button" class="btn" id="refuse-${r.request}" data-answer="no" data-request="${r.request}">${t("web.requests.refuse")}</button>`
            : html`<p class="muted">${t("web.requests.waiting", { holder: seat ? seat.holder : "" })}</p>`}
        </li>`;
      })}</ul>`,
    );
  };

  const renderPayouts = () => {
    const panel = $("#payouts-panel", root);
    const lines = state ? state.payouts || [] : [];
    if (!lines.length) {
      patch(panel, html`<h2>${t("web.payouts.title")}</h2><p class="muted">${t("web.payouts.none")}</p>`);
      return;
    }
    const round = state.view ? state.view.round : "";
    const mine = me ? lines.filter((l) => l.player === me.name) : [];
    const net = mine.reduce((sum, l) => sum + l.net, 0);
    patch(
      panel,
      html`<h2>${t("payouts.title", { round })}</h2>
        ${mine.length && state.view && state.view.finished
          ? html`<p class="my-result" id="my-result">${t("web.payouts.mine", { net: signed(net) })}</p>`
          : ""}
        <ul class="payouts" id="payouts">${lines.map(
          (l) => html`<li class="payout payout--${l.net > 0 ? "plus" : l.net < 0 ? "minus" : "even"}${me && l.player === me.name ? " payout--mine" : ""}">
            ${t("payout.line", {
              who: `${seatName(game, l.seat)} (${l.player})`,
              what: pick(l.what),
              stake: money(l.stake),
              paid: money(l.paid),
              why: pick(l.why),
            })}</li>`,
        )}</ul>`,
    );
  };

  const renderFelt = () => {
    if (!state) return;
    $("#felt", root).setAttribute("aria-label", t("web.felt"));
    patch($("#felt", root), felt(ctx(), state));
  };

  const render = () => {
    renderHead();
    renderTurn();
    renderFelt();
    renderChips();
    renderRequests();
    renderPayouts();
    if (deckRequest) deckRequest.render(state, me);
  };

  const onState = (next) => {
    const before = state;
    state = next;
    if (state.me) setBalance(state.me.balance, state.me.available);
    if (!state.pending || state.pending.kind !== "decision" || state.pending.decision !== "exchange") selected = new Set();
    if (before && before.round !== state.round) turnError = "";
    for (const r of state.returned || []) {
      // the betting timer gave these bets back (they could not be dealt): said next to the box
      if (me && r.player === me.name) {
        for (const b of r.bets) errors[b.seat] = t("web.bets_returned", { reason: pick(r.reason) });
      }
    }
    render();
    if (before && state.last_round && state.last_round !== before.last_round) {
      if (recall) recall.load();
      const mine = me ? (state.payouts || []).filter((l) => l.player === me.name) : [];
      if (mine.length && before) announce(t("web.payouts.mine", { net: signed(mine.reduce((s, l) => s + l.net, 0)) }));
    }
  };

  const onStatus = (status) => {
    linkStatus = status;
    if (status === "lost") connection(t("web.connection.lost"));
    else if (status === "open") connection(null);
  };

  const link = new TableLink(tableId, { onState, onStatus, onDenied: () => connection(t("web.connection.denied")) });
  // the first state over HTTP as well: the page shows the table even before the WebSocket opens
  api.get(`/api/tables/${tableId}/state`).then((s) => link.offer(s)).catch((err) => {
    patch($("#felt", root), html`<p class="field-error" role="alert">${err.message}</p>`);
  });

  // -- acting ---------------------------------------------------------------------------------------
  const seatError = (seat, message) => {
    errors[seat] = message;
    renderFelt();
  };

  const readAmount = () => {
    const field = $("#bet-amount", root);
    const value = parseMoney(field ? field.value : "");
    if (value <= 0) throw new Error(t("amount.positive"));
    return value;
  };

  const bet = async (seat, spot) => {
    errors[seat] = "";
    let value;
    try {
      value = readAmount();
    } catch (err) {
      seatError(seat, err.message);
      return;
    }
    try {
      if (game === "showdown_poker" && spot === "bet") {
        const seatNow = state.seats.find((s) => s.seat === seat);
        if (!seatNow.bets.some((b) => b.spot === "pot" && b.player === me.name)) {
          const pot = state.table.rules.pot_bet ?? state.table.rules.table_min;
          await api.post(`/api/tables/${tableId}/bets`, { seat, spot: "pot", amount: pot }, { idem: true });
        }
      }
      const out = await api.post(`/api/tables/${tableId}/bets`, { seat, spot, amount: value }, { idem: true });
      if (out && out.request) announce(t("web.requests.sent", { seat: seatName(game, seat) }));
      seatError(seat, "");
    } catch (err) {
      seatError(seat, err.message);
    }
  };

  const joinSpot = (seat) => {
    if (game !== "punto_y_banca") return info.back_spots[0];
    const holderBets = state.seats.find((s) => s.seat === seat).bets.filter((b) => b.player === state.seats.find((s) => s.seat === seat).holder);
    const side = holderBets.find((b) => b.spot === "banca" || b.spot === "punto");
    return side ? side.spot : "punto";
  };

  const act = async (action) => {
    const p = state.pending;
    if (!p || p.kind !== "decision") return;
    const body = { seat: p.seat, action, hand: p.hand };
    if ((action === "double" || action === "insurance") && $("#act-amount", root)) {
      try {
        body.amount = parseMoney($("#act-amount", root).value);
      } catch (err) {
        turnError = err.message;
        renderTurn();
        return;
      }
    }
    if (action === "exchange") body.cards = [...selected];
    try {
      const next = await api.post(`/api/tables/${tableId}/actions`, body, { idem: true });
      turnError = "";
      link.offer(next);
    } catch (err) {
      turnError = err.message;
      renderTurn();
    }
  };

  onClick(root, "[data-act]", async (_e, el) => {
    const seat = Number(el.dataset.seat);
    const kind = el.dataset.act;
    try {
      if (kind === "take") {
        errors[seat] = "";
        await api.post(`/api/tables/${tableId}/seats`, { seat }, { idem: true });
      } else if (kind === "leave") {
        errors[seat] = "";
        await api.del(`/api/tables/${tableId}/seats/${seat}`);
      } else if (kind === "bet") {
        await bet(seat, el.dataset.spot);
      } else if (kind === "join") {
        await bet(seat, joinSpot(seat));
      }
    } catch (err) {
      seatError(seat, err.message);
    }
  });
  onClick(root, "[data-chip]", (_e, el) => {
    amount = Number(el.dataset.chip);
    amountText = null;
    chipError = "";
    const field = $("#bet-amount", root);
    renderChips();
    if (field) $("#bet-amount", root).value = moneyField(amount);
  });
  root.addEventListener("input", (event) => {
    if (event.target.id === "bet-amount") amountText = event.target.value;
  });
  root.addEventListener("change", (event) => {
    if (event.target.id === "bet-amount") {
      try {
        amount = parseMoney(event.target.value);
        amountText = null;
        chipError = "";
      } catch (err) {
        chipError = err.message; // what he typed stays in the field, beside the error
      }
      renderChips();
    }
  });
  onClick(root, "#clear-bets", async () => {
    try {
      await api.del(`/api/tables/${tableId}/bets`);
      chipError = "";
    } catch (err) {
      chipError = err.message;
    }
    renderChips();
  });
  onClick(root, "[data-action]", (_e, el) => act(el.dataset.action));
  onClick(root, "[data-card]", (_e, el) => {
    const c = el.dataset.card;
    if (selected.has(c)) selected.delete(c);
    else selected.add(c);
    renderTurn();
  });
  onClick(root, "[data-answer]", async (_e, el) => {
    try {
      await api.post(`/api/tables/${tableId}/requests/${el.dataset.request}`, { accept: el.dataset.answer === "yes" }, { idem: true });
    } catch (err) {
      turnError = err.message;
      renderTurn();
    }
  });
  onClick(root, "#show-rules", () => {
    if (state) dialog(t("web.rules.title", { name: state.table.name }), rulesDialog(game, state.table, words));
  });
  const keys = (event) => {
    if (!state || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest && event.target.closest("input, textarea, select")) return;
    const p = state.pending;
    if (!p || p.kind !== "decision" || !me || p.holder !== me.name || p.decision !== "play") return;
    const action = p.legal.find((a) => shortcut(a) === event.key.toLowerCase());
    if (action) {
      event.preventDefault();
      act(action);
    }
  };
  document.addEventListener("keydown", keys);
  const tick = window.setInterval(() => {
    const el = $("#timer", root);
    if (el && state && state.deadline) {
      const s = remaining();
      el.textContent = t(state.deadline_kind === "betting" ? "web.timer.betting" : "web.timer.turn", { s });
    }
  }, 250);

  return {
    destroy: () => {
      link.close();
      window.clearInterval(tick);
      document.removeEventListener("keydown", keys);
      connection(null);
    },
    relang: () => {
      for (const id of ["#table-head", "#turn-bar", "#felt", "#chips-panel", "#requests-panel", "#payouts-panel"]) $(id, root)._tapete = undefined;
      render();
      if (recall) recall.render();
      if (linkStatus === "lost") connection(t("web.connection.lost"));
    },
  };
}
