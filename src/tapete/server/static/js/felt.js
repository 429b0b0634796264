// The felt of each game as its layout is: Black Jack's and Majestic 21's seven boxes under the dealer
// with the layout's phrases (and Majestic 21's three side-bet spots), Punto y Banca's zones with their
// Punto, Banca and Empate spots around the two hands, Showdown Póker's positions around the community
// cards. Built from the server's state only (server.md): `seats` (holders and the bets for the next
// round) and `view` (the engine's view for this viewer: the round in play, or the last one finished).
// Buttons carry data-act / data-seat / data-spot; the table page acts on them.

import { card, cards } from "./cards.js";
import { html } from "./dom.js";
import { money, pick, t } from "./i18n.js";

export const BLACKJACKS = new Set(["blackjack", "majestic_21"]);
const SIDE_MARKS = { under_13: "−", over_13: "+", exactly_13: "13" };

/** "Casilla 3" / "Zona 3" / "Posición 3": what a seat is called at this game. */
export function seatName(game, seat) {
  return t(`web.seat.${game}`, { seat });
}

/** A seat and hand as the dealer calls it ("Casilla 2, mano 1" only when the box has split). */
export function handName(game, seat, hand, hands = 1) {
  const name = seatName(game, seat);
  return hands > 1 ? t("web.seat.hand", { seat: name, hand: hand + 1 }) : name;
}

/** The table's limits in words. */
export function limits(rules) {
  return t("web.table.limits", { min: money(rules.table_min), max: money(rules.table_max) });
}

/** Whether a player may ask to join another's box now (every box taken, the operator allows it, the game
 * has back-betting: server.md's rule; the server judges it again). */
export function canBackBet(state, info) {
  const taken = state.seats.filter((s) => s.holder).length;
  return Boolean(state.table.rules.back_betting) && info.back_spots.length > 0 && taken === state.seats.length;
}

/** Bets for the next round on one seat, as {spot: {total, players: [{player, amount}]}}. */
function betsBySpot(seat) {
  const out = {};
  for (const bet of seat.bets || []) {
    const spot = (out[bet.spot] = out[bet.spot] || { total: 0, players: {} });
    spot.total += bet.amount;
    spot.players[bet.player] = (spot.players[bet.player] || 0) + bet.amount;
  }
  return out;
}

function outcomeBadge(outcome) {
  if (!outcome) return "";
  return html`<span class="badge badge--${outcome}">${t(`web.outcome.${outcome}`)}</span>`;
}

/** A betting spot: a button for its holder while bets are open, else a circle with what is on it. A
 * side spot (Majestic 21's −, +, 13) shows its mark and the amount without the currency (its name is in
 * its title and its label for screen readers). */
function spot(ctx, seat, name, label, mark, bets) {
  const on = bets[name];
  const total = on ? on.total : 0;
  const mine = ctx.canBet && seat.holder === ctx.me;
  const side = Boolean(mark) && ctx.game === "majestic_21";
  const backers = on ? Object.entries(on.players).filter(([p]) => p !== seat.holder) : [];
  const shown = total ? (side ? money(total).replace("S/ ", "") : money(total)) : "";
  const body = html`<span class="spot__mark" aria-hidden="true">${mark}</span>
    <span class="spot__amount">${shown}</span>`;
  const title = total ? t("web.spot.with", { spot: label, amount: money(total) }) : label;
  const inner = mine
    ? html`<button type="button" class="spot spot--${name}${total ? " spot--on" : ""}" id="spot-${seat.seat}-${name}"
        data-act="bet" data-seat="${seat.seat}" data-spot="${name}"
        aria-label="${t("web.spot.bet", { spot: label, seat: seatName(ctx.game, seat.seat) })}${total ? ` (${money(total)})` : ""}"
        title="${title}">${body}</button>`
    : html`<span class="spot spot--${name}${total ? " spot--on" : ""}" title="${title}"
        aria-label="${title}">${body}</span>`;
  return html`<div class="spot-wrap">${inner}${side ? "" : html`<span class="spot__label">${label}</span>`}
    ${backers.map(([p, a]) => html`<span class="spot__backer">+ ${p} ${money(a)}</span>`)}</div>`;
}

/** What a player can do with a seat between rounds: take it, leave it, ask to join it. */
function seatButtons(ctx, state, seat) {
  if (!ctx.canBet) return "";
  const name = seatName(ctx.game, seat.seat);
  if (!seat.holder) {
    return html`<button type="button" class="btn btn--small" id="take-${seat.seat}" data-act="take"
      data-seat="${seat.seat}">${t("web.seat.take", { seat: name })}</button>`;
  }
  if (seat.holder === ctx.me) {
    return html`<button type="button" class="btn btn--small btn--quiet" id="leave-${seat.seat}"
      data-act="leave" data-seat="${seat.seat}">${t(`web.seat.leave.${ctx.game}`)}</button>`;
  }
  if (canBackBet(state, ctx.info)) {
    return html`<button type="button" class="btn btn--small" id="join-${seat.seat}" data-act="join"
      data-seat="${seat.seat}">${t("web.seat.join", { holder: seat.holder })}</button>`;
  }
  return "";
}

function seatHeader(ctx, seat, turn) {
  const you = seat.holder && seat.holder === ctx.me;
  return html`<header class="box__head">
    <span class="box__num" aria-hidden="true">${seat.seat}</span>
    <span class="box__holder">${seat.holder ? seat.holder : t("web.seat.free")}${you ? html` <em>(${t("web.you")})</em>` : ""}</span>
    ${turn ? html`<span class="badge badge--turn">${t("web.turn.badge")}</span>` : ""}
  </header>`;
}

function errorSlot(ctx, seat) {
  const text = (ctx.errors || {})[seat.seat] || "";
  return html`<p class="field-error" id="seat-error-${seat.seat}" role="alert">${text}</p>`;
}

// ------------------------------------------------------------------------------------ Black Jack, M21
const VALUES = { A: 1, T: 10, J: 10, Q: 10, K: 10 };

/** A hand's total as a player reads it: a soft hand in play shows both counts ("7 / 17"), as the dealer
 * calls it; a finished hand, a hard one, or a soft 21 its one total. */
export function handTotal(names, total, inPlay) {
  if (!inPlay || names.some((c) => c === "??")) return { text: String(total), label: t("web.total", { total }) };
  const hard = names.reduce((sum, c) => sum + (VALUES[c[0]] || Number(c[0])), 0);
  const soft = names.some((c) => c[0] === "A") && hard + 10 <= 21 && hard + 10 !== 21;
  if (!soft) return { text: String(total), label: t("web.total", { total }) };
  return { text: t("web.total.soft", { low: hard, high: hard + 10 }), label: t("web.total.soft_label", { low: hard, high: hard + 10 }) };
}

function totalBadge(total) {
  return html`<span class="hand__total" aria-label="${total.label}">${total.text}</span>`;
}

function bjHands(ctx, box, turn) {
  if (!box) return "";
  const many = box.hands.length > 1;
  const hands = box.hands.map((hand, i) => {
    const active = turn && turn.seat === box.seat && turn.hand === i;
    const label = many ? t("web.hand", { hand: i + 1 }) : "";
    return html`<div class="hand${active ? " hand--turn" : ""}">
      ${label ? html`<span class="hand__label">${label}</span>` : ""}
      ${cards(hand.cards)}
      ${hand.cards.length ? totalBadge(handTotal(hand.cards, hand.total, Boolean(turn) && !hand.outcome)) : ""}
      <span class="hand__stake">${money(hand.stake)}${hand.double ? html` · ${t("act.double")}` : ""}</span>
      ${outcomeBadge(hand.outcome)}
    </div>`;
  });
  const extras = [];
  if (box.insurance) extras.push(html`<span class="tag">${t("act.insurance")} ${money(box.insurance)}</span>`);
  if (box.surrendered) extras.push(html`<span class="tag">${t("act.surrender")}</span>`);
  for (const [name, side] of Object.entries(box.side_bets || {})) {
    extras.push(
      html`<span class="tag">${t(`spot.${name}`)} ${money(side.stake)} → ${money(side.paid)}</span>`,
    );
  }
  const backers = (box.bettors || []).filter((b) => b.player !== box.holder);
  return html`${hands}${extras.length ? html`<div class="tags">${extras}</div>` : ""}
    ${backers.length
      ? html`<p class="box__backers">${t("web.backers")}: ${backers.map((b) => `${b.player} ${money(b.stake)}`).join(", ")}</p>`
      : ""}`;
}

function blackjackFelt(ctx, state, view) {
  const turn = view && !view.finished ? view.turn : null;
  const dealer = view ? view.dealer : [];
  const phrases = ctx.words ? pick(ctx.words.layout) : [];
  const boxes = state.seats.map((seat) => {
    const box = view ? view.seats.find((b) => b.seat === seat.seat) : null;
    const bets = betsBySpot(seat);
    const isTurn = turn && turn.seat === seat.seat;
    const spots = [spot(ctx, seat, "main", t("spot.main"), "", bets)];
    if (ctx.game === "majestic_21") {
      for (const side of ["under_13", "over_13", "exactly_13"]) {
        spots.push(spot(ctx, seat, side, t(`spot.${side}`), SIDE_MARKS[side], bets));
      }
    }
    return html`<li data-seat="${seat.seat}" class="box${isTurn ? " box--turn" : ""}${seat.holder ? "" : " box--free"}${seat.holder === ctx.me && ctx.me ? " box--mine" : ""}"
      aria-label="${seatName(ctx.game, seat.seat)}${seat.holder ? `, ${seat.holder}` : ""}">
      ${seatHeader(ctx, seat, isTurn)}
      <div class="box__play${view && view.finished ? " box__play--last" : ""}">${bjHands(ctx, box, turn)}</div>
      ${state.phase === "betting" ? html`<div class="spots${ctx.game === "majestic_21" ? " spots--m21" : ""}">${spots}</div>` : ""}
      ${seatButtons(ctx, state, seat)}
      ${errorSlot(ctx, seat)}
    </li>`;
  });
  return html`<div class="felt felt--bj">
    <section class="dealer" aria-label="${t("dealer.name")}">
      <h3 class="dealer__name">${t("dealer.name")}</h3>
      ${cards(dealer)}
      ${dealer.some((c) => c !== "??") ? html`<span class="hand__total" aria-label="${t("web.total", { total: view.dealer_total })}">${view.dealer_total}</span>` : ""}
    </section>
    <div class="phrases">${phrases.map((line) => html`<p>${line}</p>`)}</div>
    ${roundCaption(state, view)}
    <ol class="boxes boxes--arc">${boxes}</ol>
  </div>`;
}

function roundCaption(state, view) {
  if (!view && cleared(state)) return html`<p class="round-caption">${t("web.round.next")}</p>`;
  if (!view) return html`<p class="round-caption">${t("web.round.none")}</p>`;
  const key = view.finished ? "web.round.last" : "web.round.now";
  return html`<p class="round-caption">${t(key, { round: view.round })}</p>`;
}

// ------------------------------------------------------------------------------------- Punto y Banca
/** Art.11 as the dealer calls it, the terminal's words (tapete.play.punto_y_banca.narrate_steps). */
export function pybSteps(view) {
  const steps = view.steps || [];
  if (!steps.length) return [];
  if (steps[0].rule === "natural") {
    const p = view.punto.total;
    const b = view.banca.total;
    const key = p >= 8 && b >= 8 ? "pyb.natural.both" : p >= 8 ? "pyb.natural.punto" : "pyb.natural.banca";
    return [t(key, { punto: p, banca: b })];
  }
  return steps.map((step) =>
    t(`pyb.${step.type}.${step.rule}`, {
      side: t(`pyb.side.${step.side}`),
      total: step.total,
      x: step.punto_third ?? "",
    }),
  );
}

function pybResult(view) {
  if (!view || !view.winner) return "";
  const p = view.punto.total;
  const b = view.banca.total;
  if (view.winner === "empate") return t("pyb.result.empate", { total: p });
  const [won, lost] = view.winner === "punto" ? [p, b] : [b, p];
  return t("pyb.result.win", { side: t(`pyb.side.${view.winner}`), won, lost });
}

function pybFelt(ctx, state, view) {
  const phrases = ctx.words ? pick(ctx.words.layout) : [];
  const side = (name) => {
    const hand = view ? view[name] : null;
    const won = view && view.winner === name;
    return html`<section class="pyb-side pyb-side--${name}${won ? " pyb-side--won" : ""}" aria-label="${t(`pyb.side.${name}`)}">
      <h3>${t(`pyb.side.${name}`)}</h3>
      ${hand ? cards(hand.cards) : cards([])}
      ${hand && hand.cards.length ? html`<span class="hand__total" aria-label="${t("web.total", { total: hand.total })}">${hand.total}</span>` : ""}
      ${hand && hand.natural ? html`<span class="tag">${t("web.pyb.natural")}</span>` : ""}
    </section>`;
  };
  const zones = state.seats.map((seat) => {
    const bets = betsBySpot(seat);
    const zone = view ? view.seats.find((z) => z.seat === seat.seat) : null;
    const shoe = view && view.shoe_holder && view.shoe_holder.seat === seat.seat;
    const results = zone
      ? html`<ul class="results">${zone.bets.map(
          (b) => html`<li>${b.player}: ${t(`spot.${b.spot}`)} ${money(b.stake)} ${outcomeBadge(b.outcome)}</li>`,
        )}</ul>`
      : "";
    return html`<li data-seat="${seat.seat}" class="box box--zone${seat.holder ? "" : " box--free"}${seat.holder === ctx.me && ctx.me ? " box--mine" : ""}"
      aria-label="${seatName(ctx.game, seat.seat)}${seat.holder ? `, ${seat.holder}` : ""}">
      ${seatHeader(ctx, seat, false)}
      ${shoe ? html`<span class="tag tag--shoe">${t("web.pyb.shoe")}</span>` : ""}
      <div class="box__play${view && view.finished ? " box__play--last" : ""}">${results}</div>
      ${state.phase === "betting"
        ? html`<div class="spots spots--pyb">
            ${spot(ctx, seat, "punto", t("pyb.side.punto"), "P", bets)}
            ${spot(ctx, seat, "banca", t("pyb.side.banca"), "B", bets)}
            ${spot(ctx, seat, "empate", t("pyb.side.empate"), "E", bets)}
          </div>`
        : ""}
      ${seatButtons(ctx, state, seat)}
      ${errorSlot(ctx, seat)}
    </li>`;
  });
  const steps = view ? pybSteps(view) : [];
  return html`<div class="felt felt--pyb">
    <div class="pyb-hands">${side("punto")}${side("banca")}</div>
    ${view && view.finished ? html`<p class="result" role="status">${pybResult(view)}</p>` : ""}
    ${steps.length ? html`<ol class="steps">${steps.map((s) => html`<li>${s}</li>`)}</ol>` : ""}
    <div class="phrases">${phrases.map((line) => html`<p>${line}</p>`)}</div>
    ${roundCaption(state, view)}
    <ol class="boxes boxes--zones">${zones}</ol>
  </div>`;
}

// ------------------------------------------------------------------------------------ Showdown Póker
function sdFelt(ctx, state, view) {
  const turn = view && !view.finished ? view.turn : null;
  const community = view ? view.community : ["??", "??"];
  const positions = state.seats.map((seat) => {
    const bets = betsBySpot(seat);
    const pos = view ? view.seats.find((s) => s.seat === seat.seat) : null;
    const isTurn = turn && turn.seat === seat.seat;
    let play = "";
    if (pos) {
      const incs = (pos.increments || []).map((a, i) => html`<span class="tag">${t(`act.increment_${i + 1}`)} ${money(a)}</span>`);
      play = html`${cards(pos.cards)}
        <p class="box__stakes">${t("spot.bet")} ${money(pos.bet)} · ${t("spot.pot")} ${money(pos.pot)}${pos.bonus ? ` · ${t("spot.bonus")} ${money(pos.bonus)}` : ""}</p>
        ${incs.length ? html`<div class="tags">${incs}</div>` : ""}
        ${pos.exchanged ? html`<p class="box__note">${t(pos.exchanged === 1 ? "web.sd.exchanged.one" : "web.sd.exchanged.many", { n: pos.exchanged })}</p>` : ""}
        ${pos.final_hand ? html`<p class="box__note">${t(`sd.category.${pos.final_hand.category}`)} ${outcomeBadge(pos.outcome)}</p>` : ""}`;
    }
    return html`<li data-seat="${seat.seat}" class="box box--position${isTurn ? " box--turn" : ""}${seat.holder ? "" : " box--free"}${seat.holder === ctx.me && ctx.me ? " box--mine" : ""}"
      aria-label="${seatName(ctx.game, seat.seat)}${seat.holder ? `, ${seat.holder}` : ""}">
      ${seatHeader(ctx, seat, isTurn)}
      <div class="box__play${view && view.finished ? " box__play--last" : ""}">${play}</div>
      ${state.phase === "betting"
        ? html`<div class="spots">
            ${spot(ctx, seat, "bet", t("spot.bet"), "", bets)}
            ${spot(ctx, seat, "pot", t("spot.pot"), "", bets)}
            ${spot(ctx, seat, "bonus", t("spot.bonus"), "", bets)}
          </div>`
        : ""}
      ${seatButtons(ctx, state, seat)}
      ${errorSlot(ctx, seat)}
    </li>`;
  });
  return html`<div class="felt felt--sd">
    <section class="community" aria-label="${t("web.sd.community")}">
      <h3>${t("web.sd.community")}</h3>
      <span class="cards">${community.map((c) => card(c))}</span>
      ${view ? html`<p class="pot">${t("web.sd.pot", { amount: money(view.pot_total || 0) })}</p>` : ""}
    </section>
    ${roundCaption(state, view)}
    <ol class="boxes boxes--arc">${positions}</ol>
  </div>`;
}

/** Whether the felt is cleared of the last round: the bets for the next one are going on. */
function cleared(state) {
  return state.phase === "betting" && state.seats.some((s) => (s.bets || []).length > 0);
}

/** The felt of the table in `state` for `ctx` ({game, me, canBet, info, words}). The last round stays
 * on it (its cards, outcomes and result) until the first bet of the next one clears it. */
export function felt(ctx, state) {
  // no round dealt yet, or the next round's bets going on: no cards
  const view = state.view && state.view.round != null && !cleared(state) ? state.view : null;
  if (BLACKJACKS.has(ctx.game)) return blackjackFelt(ctx, state, view);
  if (ctx.game === "punto_y_banca") return pybFelt(ctx, state, view);
  return sdFelt(ctx, state, view);
}

/** What the table waits for, in words: whose card (box, hand, dealer, community) or whose decision. */
export function pendingText(game, state) {
  const p = state.pending;
  if (!p) {
    return state.phase === "betting" ? t("web.pending.betting") : t("web.pending.none");
  }
  if (p.kind === "card") {
    const face = p.face ? t(`web.face.${p.face}`) : "";
    if (p.to === "seat") {
      const view = state.view;
      const box = view && view.seats ? view.seats.find((s) => s.seat === p.seat) : null;
      const hands = box && box.hands ? box.hands.length : 1;
      if (p.replaces) return t("web.pending.card.replace", { seat: seatName(game, p.seat), card: p.replaces });
      return t("web.pending.card.to", { who: handName(game, p.seat, p.hand || 0, hands), face });
    }
    if (p.to === "dealer") {
      const key = p.index === 1 ? "web.pending.card.dealer_hole" : p.index === 0 ? "web.pending.card.dealer_first" : "web.pending.card.dealer";
      return t(key, { face });
    }
    if (p.to === "community") return t("web.pending.card.community", { n: (p.index || 0) + 1, face });
    return t("web.pending.card.to", { who: t(`pyb.side.${p.to}`), face });
  }
  const box = state.view && state.view.seats ? state.view.seats.find((s) => s.seat === p.seat) : null;
  const hands = box && box.hands ? box.hands.length : 1;
  return t("web.pending.decision", {
    holder: p.holder || "",
    who: handName(game, p.seat, p.hand || 0, hands),
    decision: t(`act.${p.decision}`),
  });
}
