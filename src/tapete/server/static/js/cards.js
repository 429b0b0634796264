// Cards as the layout shows them: rank and suit, red hearts and diamonds, a back for a face-down card
// ("??" in a view), and a label a screen reader says in the page's language ("As de picas").

import { html } from "./dom.js";
import { t } from "./i18n.js";

const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
const RANKS = { T: "10" };

/** "Td" -> "10♦" (what the eye reads). */
export function cardText(name) {
  if (!name || name === "??") return "??";
  return `${RANKS[name[0]] || name[0]}${SUITS[name[1]] || name[1]}`;
}

/** "As" -> "As de picas" / "Ace of spades". */
export function cardLabel(name) {
  if (!name || name === "??") return t("web.card.hidden");
  return t("web.card.name", { rank: t(`web.rank.${name[0]}`), suit: t(`web.suit.${name[1]}`) });
}

/** One card; `small` for lists, `selectable` makes it a toggle button (Showdown's exchange). */
export function card(name, { small = false, selected = false, button = null } = {}) {
  const size = small ? " card--small" : "";
  if (!name || name === "??") {
    return html`<span class="card card--back${size}" role="img" aria-label="${cardLabel(name)}"></span>`;
  }
  const red = name[1] === "h" || name[1] === "d" ? " card--red" : "";
  const ten = name[0] === "T" ? " card__rank--ten" : ""; // "10" kept inside the corner a fanned card shows
  const face = html`<span class="card__rank${ten}">${RANKS[name[0]] || name[0]}</span><span class="card__suit"
      >${SUITS[name[1]] || name[1]}</span
    >`;
  if (button) {
    return html`<button type="button" class="card card--button${red}${size}${selected ? " card--selected" : ""}"
      id="${button.id}" data-card="${name}" aria-pressed="${selected ? "true" : "false"}"
      aria-label="${cardLabel(name)}">${face}</button>`;
  }
  return html`<span class="card${red}${size}" role="img" aria-label="${cardLabel(name)}">${face}</span>`;
}

/** A row of cards. */
export function cards(names, opts = {}) {
  return html`<span class="cards">${(names || []).map((n) => card(n, opts))}</span>`;
}

/** Whether a typed card is written as the API wants it: rank A 2-9 T J Q K, suit s h d c ("As", "Td"). */
export function cardSyntax(text) {
  const value = String(text || "").trim();
  if (value.length === 3 && value.startsWith("10")) return `T${value[2].toLowerCase()}`;
  if (value.length !== 2) return null;
  const rank = value[0].toUpperCase();
  const suit = value[1].toLowerCase();
  if (!"A23456789TJQK".includes(rank) || !"shdc".includes(suit)) return null;
  return rank + suit;
}
