// What a player may ask of the table beside the play (server.md "Control procedures at a live table",
// "Claims"): a deck change at a live table where he is seated (Art.4: "a solicitud de los participantes"),
// with his reason; and a written claim about a round he bet in, from his round history, whose status and
// the inspector's resolution he reads there (rules.md §0, Errors).

import * as api from "../api.js";
import { $, html, patch } from "../dom.js";
import { t } from "../i18n.js";

/** The deck-change request panel of a table page: shown to a player seated at a live table. */
export function deckRequestPanel(section, tableId) {
  let message = "";
  let ok = "";
  let visible = false;
  const render = (state, me) => {
    const seated = !!(me && state && state.seats.some((s) => s.holder === me.name));
    visible = !!(state && state.table.mode === "live" && seated);
    section.hidden = !visible;
    if (!visible) {
      patch(section, "");
      return;
    }
    const typed = $("#deck-request-reason", section) ? $("#deck-request-reason", section).value : "";
    patch(
      section,
      html`<h2>${t("web.deck_request.title")}</h2>
        <p class="muted">${t("web.deck_request.help")}</p>
        <form id="deck-request-form" autocomplete="off">
          <label for="deck-request-reason">${t("web.reason")}</label>
          <input id="deck-request-reason" maxlength="2000" value="${typed}" />
          <button type="submit" class="btn" id="deck-request-submit">${t("web.deck_request.submit")}</button>
          <p class="field-error" id="deck-request-error" role="alert">${message}</p>
          <p class="ok" id="deck-request-ok" role="status">${ok}</p>
        </form>`,
    );
  };
  let last = [null, null];
  section.addEventListener("submit", async (event) => {
    if (event.target.id !== "deck-request-form") return;
    event.preventDefault();
    const reason = $("#deck-request-reason", section).value;
    try {
      const answer = await api.post(`/api/tables/${tableId}/deck-change-requests`, { reason }, { idem: true });
      message = "";
      ok = t("web.deck_request.sent", { n: answer.request });
      $("#deck-request-reason", section).value = "";
    } catch (err) {
      message = err.message;
      ok = "";
    }
    section._tapete = undefined;
    render(...last);
  });
  return {
    render: (state, me) => {
      last = [state, me];
      render(state, me);
    },
  };
}

/** A player's claims by table and round ("table-round" → the claim), newest first. */
export async function myClaims() {
  const out = {};
  for (const c of (await api.get("/api/claims")).claims) {
    const key = `${c.table}-${c.round}`;
    if (!(key in out)) out[key] = c;
  }
  return out;
}

/** Under a round of the player's history: his claim with its status and resolution, or the form to file one. */
export function claimBlock(key, claim, message) {
  if (claim) {
    const res = claim.resolution;
    return html`<div class="claim" id="claim-${key}">
      <p><strong>${t("web.claim.yours")}</strong> ${claim.text}</p>
      <p id="claim-status-${key}" class="${claim.status === "resolved" ? (res.outcome === "upheld" ? "ok" : "field-error") : "muted"}">${
        claim.status === "resolved"
          ? t("web.claim.resolved", { outcome: t(`web.claim.outcome.${res.outcome}`), text: res.text, by: res.by })
          : t("web.claim.open")
      }</p></div>`;
  }
  return html`<details class="claim" id="claim-${key}"><summary>${t("web.claim.file")}</summary>
    <form class="claim-form" data-claim="${key}" autocomplete="off">
      <label for="claim-text-${key}">${t("web.claim.text")}</label>
      <textarea id="claim-text-${key}" rows="3" maxlength="2000"></textarea>
      <button type="submit" class="btn" id="claim-submit-${key}">${t("web.claim.submit")}</button>
      <p class="field-error" role="alert">${message || ""}</p>
    </form></details>`;
}

/** File the claim the form of `key` ("table-round") holds; the claim, or throws the server's refusal. */
export async function fileClaim(section, key) {
  const [table, round] = key.split("-").map(Number);
  const text = $(`#claim-text-${key}`, section).value;
  return api.post("/api/claims", { table, round, text }, { idem: true });
}
