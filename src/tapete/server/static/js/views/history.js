// A player's last rounds (GET /api/me/rounds): table, round, net; open one to read what he was allowed to
// see of it (cards, decisions, each settlement), the same censored events the server keeps for him; under
// it, his claim about that round with the inspector's resolution, or the form to file one (rules.md §0).

import * as api from "../api.js";
import { cardText } from "../cards.js";
import { clock, html, onClick, patch } from "../dom.js";
import { money, signed, t } from "../i18n.js";
import { seatName } from "../felt.js";
import { claimBlock, fileClaim, myClaims } from "./control.js";

/** One censored event as a line of the recall. */
export function eventLine(game, ev) {
  const who = ev.seat ? seatName(game, ev.seat) : "";
  switch (ev.type) {
    case "stake":
      return t("web.ev.stake", { player: ev.player, who, spot: t(`spot.${ev.spot}`), amount: money(ev.amount) });
    case "card": {
      const to = ev.to === "seat" ? who : ev.to === "dealer" ? t("dealer.name") : ev.to === "community" ? t("web.sd.community") : t(`pyb.side.${ev.to}`);
      return t("web.ev.card", { to, card: cardText(ev.card) });
    }
    case "hole_card":
      return t("web.ev.hole", { card: cardText(ev.card) });
    case "decision":
      return t("web.ev.decision", { who, action: t(`act.${ev.action}`), amount: ev.amount ? money(ev.amount) : "" });
    case "offer":
      return t(ev.taken ? "web.ev.offer_taken" : "web.ev.offer_declined", { who, offer: t(`act.${ev.offer}`) });
    case "settle":
      return t("web.ev.settle", { player: ev.player, spot: t(`spot.${ev.spot}`), stake: money(ev.stake), paid: money(ev.paid), outcome: t(`web.outcome.${ev.outcome}`) });
    case "community_shown":
      return t("web.ev.community", { card: cardText(ev.card) });
    case "outcome":
      return t("web.ev.outcome", { punto: ev.punto, banca: ev.banca, winner: t(`pyb.side.${ev.winner}`) });
    case "round_voided":
      return t("web.ev.voided", { reason: ev.reason });
    default:
      return null;
  }
}

export function history(section) {
  let rounds = null;
  let open = null;
  let error = "";
  let claims = {};
  let claimError = "";
  const render = () => {
    patch(
      section,
      html`<h2>${t("web.history.title")}</h2>
        ${error ? html`<p class="field-error" role="alert">${error}</p>` : ""}
        ${rounds && !rounds.length ? html`<p class="muted">${t("web.history.empty")}</p>` : ""}
        ${rounds && rounds.length
          ? html`<ul class="history">${rounds.map((r, i) => {
              const key = `${r.table}-${r.round}`;
              const net = r.result ? r.result.net : 0;
              return html`<li>
                <button type="button" class="linkish" id="history-${key}" data-i="${i}" aria-expanded="${open === key ? "true" : "false"}">
                  ${r.name} · ${t("web.round.n", { round: r.round })} ·
                  ${r.status === "in_progress"
                    ? t("web.round_status.in_progress")
                    : r.status === "voided"
                      ? html`<span class="voided">${t("web.history.voided", { reason: r.void_reason || "" })}</span>`
                      : html`<span class="${net > 0 ? "plus" : net < 0 ? "minus" : ""}">${signed(net)}</span>`}
                  <span class="muted">${clock(r.ended_at || r.started_at)}</span>
                </button>
                ${open === key
                  ? html`<ol class="events">${r.events.map((ev) => eventLine(r.game, ev)).filter(Boolean).map((line) => html`<li>${line}</li>`)}</ol>
                    ${claimBlock(key, claims[key], claimError)}`
                  : ""}
              </li>`;
            })}</ul>`
          : ""}`,
    );
  };
  const load = async () => {
    try {
      rounds = (await api.get("/api/me/rounds")).rounds;
      claims = await myClaims();
      error = "";
    } catch (err) {
      error = err.message;
    }
    render();
  };
  section.addEventListener("submit", async (event) => {
    const form = event.target.closest("form[data-claim]");
    if (!form) return;
    event.preventDefault();
    const key = form.dataset.claim;
    try {
      claims[key] = await fileClaim(section, key);
      claimError = "";
    } catch (err) {
      claimError = err.message;
    }
    section._tapete = undefined;
    render();
  });
  onClick(section, "button[data-i]", (_e, button) => {
    const r = rounds[Number(button.dataset.i)];
    const key = `${r.table}-${r.round}`;
    open = open === key ? null : key;
    claimError = "";
    render();
  });
  render();
  load();
  return { render, load };
}
