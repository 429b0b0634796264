// A table, as a player sees it (and as staff watch it): the felt of its game, his balance, chips of the
// table's denominations, the regulation's offers in its order with the turn timer, back-bet requests
// for the holder to accept or refuse, each payout with its reason, his last rounds; the table's rules and
// the house's [A] choices one click away. Live: the WebSocket state, reconnected by itself.

import * as api from "../api.js";
import { card, cardText } from "../cards.js";
import { $, announce, html, onClick, patch } from "../dom.js";
import { has, money, moneyField, parseMoney, pick, signed, t } from "../i18n.js";
import { connection, dialog, setBalance, whoami } from "../main.js";
import { refreshLater as refreshSession } from "../protection.js";
import { BLACKJACKS, felt, handName, handTotal, limits, pendingText, seatName } from "../felt.js";
import { TableLink } from "../live.js";
import { history } from "./history.js";
import { deckRequestPanel } from "./control.js";
import { rulesDialog } from "./rules.js";

/** Chip values of a table: its minimum, the usual casino values between (multiples of the minimum) and
 * its maximum; at most nine (the largest values between give way: the maximum is always there). */
export function chipValues(rules) {
  const standard = [500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 250000, 500000, 1000000, 5000000];
  const min = rules.table_min;
  const max = rules.table_max;
  const out = [min];
  for (const v of standard) if (v > min && v < max && v % min === 0) out.push(v);
  while (out.length > 8) out.splice(out.length - 1, 1); // the largest values between give way first
  if (max > min) out.push(max);
  return out;
}

/** A chip's face: the amount without the currency and without zero céntimos ("1,000", "2.50"). */
function chipFace(v) {
  return money(v).replace("S/ ", "").replace(/\.00$/, "");
}

/** The game's own word for a message when the catalog has one (`key.game`), else the general one. */
function gameWord(key, game, params = {}) {
  return has(`${key}.${game}`) ? t(`${key}.${game}`, params) : t(key, params);
}

/** A short tone for the deal, the turn and the result (only when the player turned the sound on). */
let audio = null;
function tone(kind) {
  if (localStorage.getItem("tapete.sound") !== "on") return;
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = { deal: 660, turn: 880, result: 523 }[kind] || 600;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + (kind === "deal" ? 0.08 : 0.3));
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.32);
  } catch (_err) {
    // no sound on this device: the page goes on without it
  }
}

/** Punto y Banca's big road: a column per run of Punto or Banca (an Empate stays in the run it falls
 * in), each coup one cell; the bead plate is the coups in order, six to a column. */
export function bigRoad(coups) {
  const columns = [];
  let side = null; // the run's side (punto or banca); null before the first one
  for (const c of coups) {
    if (c.result !== "empate" && c.result !== side) {
      if (side !== null || !columns.length) columns.push([]);
      side = c.result;
    }
    if (!columns.length) columns.push([]);
    columns[columns.length - 1].push(c);
  }
  return columns;
}

function scoreCell(c) {
  const label = t("web.score.cell", { round: c.round, result: t(`pyb.side.${c.result}`), punto: c.punto, banca: c.banca });
  return html`<li class="score-cell score-cell--${c.result}" data-result="${c.result}" data-round="${c.round}" title="${label}"
    aria-label="${label}"><span aria-hidden="true">${t(`web.score.letter.${c.result}`)}</span></li>`;
}

/** The Marcador / Scoreboard region: the bead plate, the big road, the counts and the cards left. */
export function scoreboard(board) {
  const coups = board ? board.coups : [];
  const count = (r) => coups.filter((c) => c.result === r).length;
  return html`<h2 id="score-title">${t("web.score.title")}</h2>
    ${coups.length
      ? html`<p class="score-counts">${t("web.score.counts", { punto: count("punto"), banca: count("banca"), empate: count("empate") })}</p>`
      : html`<p class="muted">${t("web.score.empty")}</p>`}
    <h3 class="score-road-title">${t("web.score.bead")}</h3>
    <ol class="road road--bead" data-road="bead" aria-label="${t("web.score.bead")}">${coups.map(scoreCell)}</ol>
    <h3 class="score-road-title">${t("web.score.big")}</h3>
    <div class="road road--big" data-road="big" aria-label="${t("web.score.big")}">${bigRoad(coups).map(
      (col) => html`<ol class="road__col">${col.map(scoreCell)}</ol>`,
    )}</div>
    ${board && board.cards_left !== null && board.cards_left !== undefined
      ? html`<p class="shoe-left" id="shoe-left">${t("web.score.cards_left", { n: board.cards_left, pack: board.pack })}</p>`
      : ""}`;
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
  let board = null; // Punto y Banca's scoreboard (GET /api/tables/{id}/scoreboard)
  const voidReasons = {}; // round -> the reason of its void, from the player's own rounds
  const seenCards = new Set(); // the cards already on the felt (the new ones are dealt one by one)
  let firstFelt = true;
  let placed = []; // the bets this page placed since the bets opened, in order (Deshacer takes the last)
  const lastKey = `tapete.lastbets.${tableId}.${me ? me.name : ""}`;

  root.innerHTML = `<section class="table-page">
      <header class="table-head" id="table-head"></header>
      <div class="turn-bar" id="turn-bar"></div>
      <div class="table-grid">
        <div class="felt-wrap" id="felt" role="region"></div>
        <aside class="side">
          <section class="panel rack" id="rack" hidden></section>
          <section class="panel" id="chips-panel"></section>
          <section class="panel scoreboard" id="scoreboard" role="region" hidden></section>
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

  const isOpen = () => Boolean(state) && state.table.status === "open";
  const ctx = () => ({ game, me: me ? me.name : null, canBet: player && state && state.phase === "betting" && isOpen(), info, words, errors });

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
          <button type="button" class="btn btn--quiet" id="sound" aria-pressed="${localStorage.getItem("tapete.sound") === "on" ? "true" : "false"}"
            title="${t("web.sound.hint")}">${t("web.sound.label")}</button>
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
        total: handTotal(hand.cards, hand.total, true).text,
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
      if (action === "exchange") label = t(selected.size === 0 ? "web.sd.exchange.none" : selected.size === 1 ? "web.sd.exchange.one" : "web.sd.exchange.many", { n: selected.size });
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

  const timerText = (s) => (state.deadline_kind === "betting" ? t("web.timer.betting", { s }) : gameWord("web.timer.turn", game, { s }));

  /** What the table says above the felt when it is not open, or its last round was voided. */
  const notice = () => {
    if (!state) return "";
    if (state.table.status !== "open") {
      return html`<p class="notice notice--${state.table.status}" id="table-notice" role="status">${t(`web.table.${state.table.status}`)}</p>`;
    }
    const v = state.view;
    if (v && v.voided && v.round != null) {
      const reason = voidReasons[v.round];
      return html`<p class="notice notice--void" id="void-notice" role="status">${reason !== undefined
        ? t("web.void.player", { round: v.round, reason })
        : t("web.void.table", { round: v.round })}</p>`;
    }
    return "";
  };

  const remaining = () => {
    if (!state || !state.deadline) return null;
    const ms = Date.parse(state.deadline) - (Date.now() + api.skew());
    return Math.max(0, Math.ceil(ms / 1000));
  };

  const timerHtml = () => {
    const s = remaining();
    if (s === null) return "";
    return html`<p class="timer" role="timer" id="timer" aria-live="off">${timerText(s)}</p>`;
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
    } else if (!isOpen()) {
      body = html`<div class="turn">${notice()}</div>`;
    } else {
      body = html`<div class="turn">
        ${notice()}
        <p id="turn-status">${pendingText(game, state)}</p>
        ${state.phase === "betting" && !state.deadline && state.table.mode === "virtual" && !state.table.rules.betting_seconds ? html`<p class="muted">${t("web.turn.dealer_deals")}</p>` : ""}
        ${timerHtml()}
      </div>`;
    }
    patch($("#turn-bar", root), body);
    const key = mine ? `${state.round}:${p.seat}:${p.hand}:${p.decision}` : null;
    if (key && key !== turnKey) {
      announce(`${t("web.turn.yours")}: ${question(p)}`);
      tone("turn");
      const first = $("#turn-bar .actions button:not([disabled])", root);
      if (first) first.focus({ preventScroll: true });
      // his hand in view above the decision bar (a phone's bar covers the bottom of the screen)
      const box = $(".box--turn", root);
      if (box && typeof box.scrollIntoView === "function") box.scrollIntoView({ block: "center" });
    }
    turnKey = key;
  };

  const myBets = () => (state ? state.seats.flatMap((seat) => seat.bets.filter((b) => b.player === me.name).map((b) => ({ seat: seat.seat, spot: b.spot, amount: b.amount }))) : []);
  const lastBets = () => {
    try {
      return JSON.parse(localStorage.getItem(lastKey) || "[]");
    } catch (_err) {
      return [];
    }
  };

  /** The chip rack and the bet controls (Deshacer, Repetir, Doblar); on a phone a bar that stays in view
   * while the bets are open, with the last round's result where the player looks. */
  let resultShown = null; // the round whose result the rack last brought into view
  const renderRack = () => {
    const rack = $("#rack", root);
    const show = player && state && isOpen();
    const seated = Boolean(show) && state.seats.some((s) => s.holder === me.name);
    rack.hidden = !show;
    rack.classList.toggle("rack--live", seated && state.phase === "betting");
    root.firstElementChild.classList.toggle("table-page--rack", seated && state.phase === "betting");
    if (!show) {
      patch(rack, "");
      return;
    }
    const chips = chipValues(state.table.rules);
    if (amount === null) amount = chips[0];
    const betting = state.phase === "betting";
    const mine = myBets();
    const lines = (state.payouts || []).filter((l) => l.player === me.name);
    const result = betting && !mine.length && lines.length && state.view && state.view.finished
      ? html`<p class="rack__result" id="rack-result">${t("web.payouts.mine", { net: signed(lines.reduce((sum, l) => sum + l.net, 0)) })}</p>`
      : "";
    patch(
      rack,
      html`${result}
        <div class="chips" role="group" aria-label="${t("web.chips.label")}">
          ${chips.map((v, i) => html`<button type="button" class="chip chip--${i % 8}${chipFace(v).length > 3 ? " chip--long" : ""}" id="chip-${v}" data-chip="${v}"
            aria-pressed="${v === amount ? "true" : "false"}" aria-label="${t("web.chips.one", { amount: money(v) })}" ${betting ? "" : html`disabled`}>${chipFace(v)}</button>`)}
        </div>
        <div class="bet-controls" role="group" aria-label="${t("web.bets.controls")}">
          <button type="button" class="btn" id="bet-undo" title="${t("web.bets.undo_hint")}" ${betting && mine.length ? "" : html`disabled`}>${t("web.bets.undo")}</button>
          <button type="button" class="btn" id="bet-rebet" title="${t("web.bets.rebet_hint")}" ${betting && !mine.length && lastBets().length ? "" : html`disabled`}>${t("web.bets.rebet")}</button>
          <button type="button" class="btn" id="bet-double" title="${t("web.bets.double_hint")}" ${betting && mine.length ? "" : html`disabled`}>${t("web.bets.double")}</button>
        </div>`,
    );
    // the round's result where he is looking: brought into view once, when it first shows
    const shown = result ? state.last_round : null;
    if (shown !== null && shown !== resultShown) {
      const line = $("#rack-result", root);
      if (line && typeof line.scrollIntoView === "function") line.scrollIntoView({ block: "nearest" });
    }
    resultShown = shown;
  };

  const renderChips = () => {
    const panel = $("#chips-panel", root);
    if (!state) return;
    renderRack();
    if (!player) {
      patch(panel, html`<h2>${t("web.watching.title")}</h2><p class="muted">${t("web.watching.text")}</p>`);
      return;
    }
    if (!isOpen()) {
      patch(panel, html`<h2>${t("web.chips.title")}</h2>
        <p class="balance">${t("web.me.balance")}: <strong id="balance">${money(state.me.balance)}</strong></p>
        <p class="muted">${t(`web.table.${state.table.status}`)}</p>`);
      return;
    }
    const held = state.seats.filter((s) => s.holder === me.name).map((s) => s.seat);
    const mine = myBets();
    const staked = mine.reduce((sum, b) => sum + b.amount, 0);
    patch(
      panel,
      html`<h2>${t("web.chips.title")}</h2>
        <p class="balance">${t("web.me.balance")}: <strong id="balance">${money(state.me.balance)}</strong>
          · ${t("web.me.available")}: <strong id="available">${money(state.me.available)}</strong></p>
        <label for="bet-amount">${t("web.chips.amount")}</label>
        <input id="bet-amount" inputmode="decimal" value="${amountText !== null ? amountText : moneyField(amount)}" />
        <p class="field-error" id="chip-error" role="alert">${chipError}</p>
        <p class="muted">${state.phase !== "betting"
          ? t("web.chips.closed")
          : held.length
            ? gameWord("web.chips.hint", game)
            : state.seats.every((s) => s.holder)
              ? gameWord("web.chips.behind", game)
              : gameWord("web.chips.take", game)}</p>
        ${mine.length
          ? html`<p id="staked">${t("web.chips.staked", { amount: money(staked) })}</p>
            <button type="button" class="btn btn--quiet" id="clear-bets" ${state.phase !== "betting" ? html`disabled` : ""}>${t("web.chips.clear")}</button>`
          : ""}`,
    );
  };

  const renderScore = () => {
    const panel = $("#scoreboard", root);
    if (game !== "punto_y_banca") return;
    panel.hidden = false;
    panel.setAttribute("aria-label", t("web.score.title"));
    patch(panel, scoreboard(board));
  };

  const loadScore = async () => {
    if (game !== "punto_y_banca") return;
    try {
      board = await api.get(`/api/tables/${tableId}/scoreboard`);
    } catch (_err) {
      return; // the board waits for the next round's end
    }
    renderScore();
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

  /** Whether a payout line is one hand of a box that split (its hand then named: "Casilla 2, mano 1"). */
  const splitHand = (lines, l) =>
    Number.isInteger(l.hand) && lines.some((o) => o.seat === l.seat && Number.isInteger(o.hand) && o.hand !== l.hand);

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
              who: `${splitHand(lines, l) ? t("web.payout.hand", { seat: seatName(game, l.seat), hand: l.hand + 1 }) : seatName(game, l.seat)} (${l.player})`,
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
    const el = $("#felt", root);
    el.setAttribute("aria-label", t("web.felt"));
    const before = el._tapete;
    patch(el, felt(ctx(), state));
    if (el._tapete === before) return;
    // the cards that were not on the felt before are dealt one after the other (a short animation that
    // the reduced-motion setting turns off); the first picture of the table deals nothing
    let fresh = 0;
    const round = state.view ? state.view.round : null;
    el.querySelectorAll(".cards").forEach((row, r) => {
      row.querySelectorAll(".card").forEach((c, i) => {
        const key = `${round}|${r}|${i}|${c.getAttribute("aria-label")}`;
        if (seenCards.has(key)) return;
        seenCards.add(key);
        if (firstFelt || c.classList.contains("card--back")) return;
        c.classList.add("card--dealt", `card--dealt-${Math.min(fresh, 7)}`);
        fresh += 1;
      });
    });
    if (fresh) tone("deal");
    firstFelt = false;
  };

  const render = () => {
    renderScore();
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
    const turned = before && (before.round !== state.round || before.phase !== state.phase || before.last_round !== state.last_round);
    // the session's wagers and net follow the rounds, a round that gave the chips back (a push) included,
    // and what was played elsewhere while this table was not in view
    if (!before || before.last_round !== state.last_round) refreshSession();
    if (turned) {
      // a new round, or bets open again: what was refused before no longer stands next to anyone's box
      turnError = "";
      chipError = "";
      for (const k of Object.keys(errors)) delete errors[k];
    }
    if (before && before.phase === "betting" && (state.phase === "playing" || state.last_round !== before.last_round)) {
      // the bets just closed (a round that ended at its deal is seen already over): they are the ones
      // *Repetir* places again at the next round
      const closed = before.seats.flatMap((seat) => seat.bets.filter((b) => me && b.player === me.name).map((b) => ({ seat: seat.seat, spot: b.spot, amount: b.amount })));
      if (closed.length) localStorage.setItem(lastKey, JSON.stringify(closed));
      placed = [];
    }
    if (before && before.seats) {
      // a seat another player now holds: an old refusal under it is no longer this player's
      for (const seat of state.seats) {
        const old = before.seats.find((x) => x.seat === seat.seat);
        if (old && old.holder !== seat.holder) delete errors[seat.seat];
      }
    }
    if (player && state.view && state.view.voided && state.view.round != null && !(state.view.round in voidReasons)) {
      const round = state.view.round;
      voidReasons[round] = undefined;
      api.get("/api/me/rounds").then((out) => {
        const found = out.rounds.find((r) => r.table === tableId && r.round === round);
        if (found && found.void_reason) {
          voidReasons[round] = found.void_reason;
          renderTurn();
        }
      }).catch(() => {});
    }
    if (!before || before.last_round !== state.last_round || before.phase !== state.phase) loadScore();
    for (const r of state.returned || []) {
      // the betting timer gave these bets back (they could not be dealt): said next to the box
      if (me && r.player === me.name) {
        for (const b of r.bets) errors[b.seat] = gameWord("web.bets_returned", game, { reason: pick(r.reason) });
      }
    }
    render();
    if (before && state.last_round && state.last_round !== before.last_round) {
      if (recall) recall.load();
      const mine = me ? (state.payouts || []).filter((l) => l.player === me.name) : [];
      if (mine.length && before) {
        announce(t("web.payouts.mine", { net: signed(mine.reduce((s, l) => s + l.net, 0)) }));
        tone("result");
      }
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
    const value = field ? parseMoney(field.value) : amount;
    if (value <= 0) throw new Error(t("amount.positive"));
    return value;
  };

  const bet = async (seat, spot, given = null) => {
    errors[seat] = "";
    let value = given;
    try {
      if (value === null) value = readAmount();
    } catch (err) {
      seatError(seat, err.message);
      return false;
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
      else placed.push({ seat, spot, amount: value });
      seatError(seat, "");
      return true;
    } catch (err) {
      seatError(seat, err.message);
      return false;
    }
  };

  /** Place a list of bets one after the other (Repetir, Doblar), Showdown's pot bet left to `bet`. */
  const betAll = async (list) => {
    for (const b of list.filter((x) => x.spot !== "pot")) {
      if (!(await bet(b.seat, b.spot, b.amount))) break;
    }
  };
  onClick(root, "#bet-undo", async () => {
    chipError = "";
    try {
      const taken = await api.del(`/api/tables/${tableId}/bets/last`);
      placed = placed.filter((b, i) => i !== placed.length - 1 || b.seat !== taken.seat || b.spot !== taken.spot);
      announce(t("web.bets.undone"));
    } catch (err) {
      chipError = err.message;
    }
    renderChips();
  });
  onClick(root, "#bet-rebet", async () => {
    const list = lastBets();
    chipError = list.length ? "" : t("web.bets.no_last_round");
    if (list.length) await betAll(list);
    renderChips();
  });
  onClick(root, "#bet-double", async () => {
    const list = myBets();
    chipError = list.length ? "" : t("web.bets.nothing_to_double");
    if (list.length) await betAll(list);
    renderChips();
  });
  onClick(root, "#sound", (_e, el) => {
    const on = localStorage.getItem("tapete.sound") !== "on";
    localStorage.setItem("tapete.sound", on ? "on" : "off");
    el.setAttribute("aria-pressed", on ? "true" : "false");
    if (on) tone("turn");
  });

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
      placed = [];
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
      el.textContent = timerText(s);
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
      for (const id of ["#table-head", "#turn-bar", "#felt", "#rack", "#chips-panel", "#scoreboard", "#requests-panel", "#payouts-panel"]) $(id, root)._tapete = undefined;
      render();
      if (recall) recall.render();
      if (linkStatus === "lost") connection(t("web.connection.lost"));
    },
  };
}
