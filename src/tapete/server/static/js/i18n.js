// The page's language: the catalogs of src/tapete/locale (the regulation's words, the games' phrases, the
// error messages and the page's own "web.*" words), served by GET /api/i18n/{lang}, filled as the Python
// side fills them (`{name}`, `{amount:money}`, `{spot:spot}`, ...). Spanish by default; the choice is
// remembered in this browser. Amounts are integers of the table's unit (céntimos), shown as "S/ 12.50".

export const LANGUAGES = ["es", "en"];
const STORE = "tapete.lang";
const NAME_SPECS = {
  spot: "spot.",
  action: "act.",
  game: "game.",
  reason: "oserror.",
  source: "source.",
  // the page's own: a setting, a table's status, a role said in words (never their machine names)
  setting: "web.setting.",
  status: "web.status.",
  role: "web.role.",
};

let current = LANGUAGES.includes(localStorage.getItem(STORE)) ? localStorage.getItem(STORE) : "es";
let messages = {};
const listeners = new Set();

/** The language the page speaks now. */
export function lang() {
  return current;
}

/** Load a language's catalog (and remember the choice); listeners re-render the page. */
export async function setLang(next) {
  const chosen = LANGUAGES.includes(next) ? next : "es";
  const response = await fetch(`/api/i18n/${chosen}`, { headers: { Accept: "application/json" } });
  if (!response.ok) throw new Error(`catalog ${chosen}: ${response.status}`);
  const body = await response.json();
  messages = body.messages;
  current = chosen;
  localStorage.setItem(STORE, chosen);
  document.documentElement.lang = chosen;
  for (const fn of listeners) fn(chosen);
}

/** Call `fn(lang)` after every language change. */
export function onLang(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** Whether the catalog has `key`. */
export function has(key) {
  return Object.prototype.hasOwnProperty.call(messages, key);
}

/** A message of the catalog filled with `params` (the key itself when the catalog lacks it). */
export function t(key, params = {}) {
  const template = messages[key];
  if (template === undefined) return key;
  return fill(template, params);
}

/** A text for a person: the rules' "[A]" marks (a house choice where the regulation is silent,
 * rules.md) said in words ("regla de la casa", "elección de la casa"), never as the marker itself. */
export function plain(text) {
  const choice = messages["web.house_choice"] || "elección de la casa";
  return String(text)
    .replace(/(regla de la casa|house rule) \[A\]/g, "$1")
    .replace(/ ?\[A: ([^\]]*)\]/g, (_, value) => ` (${choice}: ${value})`)
    .replace(/ ?\[A\]/g, ` (${choice})`);
}

/** Fill a template as tapete.i18n does: amounts as money, machine names in the language. */
export function fill(template, params = {}) {
  const filled = template.replace(/\{(\w+)(?::(\w+))?\}/g, (whole, name, spec) => {
      if (!(name in params)) return whole;
      const value = params[name];
      if (spec === "money" && Number.isInteger(value)) return money(value);
      if (spec && NAME_SPECS[spec]) {
        const one = (v) => {
          const k = `${NAME_SPECS[spec]}${v}`;
          return has(k) ? messages[k] : String(v);
        };
        return Array.isArray(value) ? value.map(one).join(", ") : one(value);
      }
      if (spec === "money" && Array.isArray(value)) return value.map((v) => (Number.isInteger(v) ? money(v) : String(v))).join(", ");
      if (Array.isArray(value)) return value.join(", ");
      return String(value);
    });
  return plain(filled.replace(/\{\{/g, "{").replace(/\}\}/g, "}"));
}

/** The words of a payout reason, a house rule, ... given in every language ({"es": .., "en": ..}). */
export function pick(byLang) {
  if (!byLang) return "";
  return byLang[current] ?? byLang.es ?? "";
}

/** 1250 -> "S/ 12.50" (tapete.money.format_money for soles). */
export function money(units) {
  const sign = units < 0 ? "-" : "";
  const value = Math.abs(units);
  const whole = Math.floor(value / 100);
  const cents = String(value % 100).padStart(2, "0");
  return `${sign}S/ ${whole.toLocaleString("en-US")}.${cents}`;
}

/** A signed amount: "+S/ 10.00", "-S/ 5.00", "S/ 0.00". */
export function signed(units) {
  return units > 0 ? `+${money(units)}` : money(units);
}

/** An amount a person typed ("12.50", "S/ 12.50", "1,000") as céntimos; throws Error(message) in the
 * page's language when it is not money (tapete.i18n.Money.parse, the same rules and the same words). */
export function parseMoney(text) {
  const shown = String(text ?? "").trim();
  let rawText = shown;
  const example = "12.50";
  if (!rawText) throw new Error(t("money.empty", { example }));
  if (rawText.toUpperCase().startsWith("S/")) rawText = rawText.slice(2).trim();
  if (rawText.startsWith("-")) throw new Error(t("money.negative", { text: shown }));
  if (rawText.startsWith("+")) rawText = rawText.slice(1);
  if (rawText.includes(",")) {
    if (/^\d{1,3}(?:,\d{3})+(?:\.\d*)?$/.test(rawText)) rawText = rawText.replace(/,/g, "");
    else throw new Error(t("money.comma", { text: shown, example }));
  }
  const m = /^(\d+)(?:\.(\d*))?$/.exec(rawText);
  if (!m) throw new Error(t("money.not_number", { text: shown, example }));
  const frac = m[2] || "";
  if (frac.length > 2) throw new Error(t("money.too_many_decimals", { text: shown, decimals: 2 }));
  return Number(m[1]) * 100 + Number(frac.padEnd(2, "0") || "0");
}

/** Céntimos as the plain number a money field shows ("12.50"). */
export function moneyField(units) {
  if (units === null || units === undefined) return "";
  return (units / 100).toFixed(2);
}

/** A refusal of the server as the page says it: the page's own words for its key when the catalog has
 * them (`web.` + key: no setting key, JSON or machine name in them), else the server's message (already in
 * the page's language). */
export function refusal(error) {
  if (!error) return "";
  const key = error.key ? `web.${error.key}` : null;
  if (key && has(key)) return t(key, error.params || {});
  return error.message || t("web.error.unknown");
}
