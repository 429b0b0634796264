// The table's rules one click away: the layout's phrases, every setting of this table with its value,
// and the house's own choices where the regulation is silent (rules.md [A]), Showdown Póker's house rules
// as the server words them for its players.

import { html } from "../dom.js";
import { money, pick, plain, t } from "../i18n.js";

/** Settings that are amounts of money (shown in soles). */
export const MONEY_KEYS = new Set([
  "table_min",
  "table_max",
  "pot_bet",
  "payout_limit",
  "side_bet_min",
  "side_bet_max",
  "bonus_min",
  "bonus_max",
  "empate_min",
  "empate_max",
]);

/** A setting's value as a person reads it. */
export function settingValue(key, value, rules) {
  if (value === null || value === undefined) return t(`web.default.${key}`, { min: money(rules.table_min), max: money(rules.table_max) });
  if (typeof value === "boolean") return t(value ? "web.yes" : "web.no");
  if (MONEY_KEYS.has(key) && Number.isInteger(value)) return money(value);
  if (key === "burn" && value === "first_card_value") return t("web.burn.first_card_value");
  if (key === "burn" && Number.isInteger(value)) return t("web.burn.n", { n: value });
  if (key === "shoe_passes") return t(`web.shoe_passes.${value}`);
  if (key.endsWith("_seconds")) return t("web.seconds", { s: value });
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${t(`sd.category.${k}`)} ${t("sd.ratio", { n: v })}`).join(", ");
  return String(value);
}

function houseLines(game, rules, words) {
  const yes = (v) => t(v ? "web.yes" : "web.no");
  const lines = [];
  if (game === "blackjack" || game === "majestic_21") {
    lines.push(t("web.house.back_betting", { value: yes(rules.back_betting) }));
    lines.push(t("web.house.back_holder"));
    lines.push(t("web.house.splits", { n: rules.max_splits, resplit: yes(rules.resplit_aces) }));
    lines.push(t("web.house.split21"));
    lines.push(t("web.house.settlement"));
    lines.push(t(rules.dealer_completes_hand ? "web.house.dealer_completes" : "web.house.dealer_draws"));
    if (game === "majestic_21") {
      lines.push(t("web.house.m21_surrender", { value: yes(rules.surrender) }));
      lines.push(t("m21.side_rules", { min: money(rules.side_bet_min ?? rules.table_min), max: money(rules.side_bet_max ?? rules.table_max) }));
    }
  } else if (game === "punto_y_banca") {
    lines.push(t("pyb.rules", { pct: rules.commission_percent, tie: rules.tie_pays }));
    lines.push(t("web.house.back_betting_pyb", { value: yes(rules.back_betting) }));
    lines.push(t(`web.house.shoe_passes.${rules.shoe_passes}`));
  } else {
    lines.push(...pick(words.house_rules).slice(1).map(plain));
  }
  lines.push(t("web.house.rounding"));
  if (rules.turn_seconds) lines.push(t(game === "showdown_poker" ? "web.house.turn.showdown_poker" : "web.house.turn", { s: rules.turn_seconds }));
  if (rules.betting_seconds) lines.push(t("web.house.betting", { s: rules.betting_seconds }));
  return lines;
}

/** The rules dialog's body for a table ({name, game, rules}) and its words (layout, house rules). */
export function rulesDialog(game, table, words) {
  const rules = table.rules;
  const phrases = pick(words.layout);
  return html`${phrases.length
      ? html`<h3>${t("web.rules.layout")}</h3><ul class="phrases-list">${phrases.map((p) => html`<li>${p}</li>`)}</ul>`
      : ""}
    <h3>${t("web.rules.house")}</h3>
    <ul class="house-rules">${houseLines(game, rules, words).map((line) => html`<li>${line}</li>`)}</ul>
    <h3>${t("web.rules.settings")}</h3>
    <dl class="settings">${Object.entries(rules).map(
      // Showdown Póker has no back-betting (its regulation has no such bet), whatever the setting holds
      ([key, value]) => html`<dt>${t(`web.setting.${key}`)}</dt><dd>${game === "showdown_poker" && key === "back_betting" ? t("web.no") : settingValue(key, value, rules)}</dd>`,
    )}</dl>`;
}
