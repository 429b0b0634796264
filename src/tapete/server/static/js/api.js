// The table server's public API (shared/spec/server.md) as the page calls it: the token of this tab's
// session (sessionStorage: closing the tab logs out on a shared terminal), every request in the page's
// language (Accept-Language, so refusals come back in it), an Idempotency-Key on whatever moves money or
// plays, retried once with the same key when the network failed (the server answers it once).

import { lang, refusal, t } from "./i18n.js";
import { randomKey } from "./dom.js";

const TOKEN = "tapete.token";
const USER = "tapete.user";

/** A refusal of the server ({"error": {code, message, key, params}}) or a network failure. */
export class ApiError extends Error {
  constructor(status, error) {
    super(refusal(error));
    this.status = status;
    this.code = error.code;
    this.key = error.key;
    this.params = error.params || {};
    // each refused setting said in the page's words too (its key and params, as the refusal's own)
    this.problems = (error.problems || []).map((p) => ({ ...p, message: refusal(p) }));
  }
}

let clockSkew = 0;
const authListeners = new Set();

/** Milliseconds to add to the browser's clock to read the server's (from the Date header). */
export function skew() {
  return clockSkew;
}

export function token() {
  return sessionStorage.getItem(TOKEN);
}

/** Who is logged in on this tab ({name, role}) or null. */
export function user() {
  const text = sessionStorage.getItem(USER);
  return text ? JSON.parse(text) : null;
}

/** Call `fn()` when the session ends (logout, or a token the server no longer takes). */
export function onLoggedOut(fn) {
  authListeners.add(fn);
}

function forget() {
  sessionStorage.removeItem(TOKEN);
  sessionStorage.removeItem(USER);
  for (const fn of authListeners) fn();
}

/** One request; resolves to the JSON body (or text for `text: true`), rejects with ApiError. */
export async function request(method, path, { body, idem = false, text = false, raw = undefined, type = "" } = {}) {
  const headers = { "Accept-Language": lang(), Accept: text ? "*/*" : "application/json" };
  const tok = token();
  if (tok) headers.Authorization = `Bearer ${tok}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (raw !== undefined) headers["Content-Type"] = type || "text/plain";
  if (idem) headers["Idempotency-Key"] = randomKey();
  const sent = raw !== undefined ? raw : body === undefined ? undefined : JSON.stringify(body);
  const init = { method, headers, body: sent };
  let response;
  for (let attempt = 0; ; attempt += 1) {
    try {
      response = await fetch(path, init);
      break;
    } catch (err) {
      if (!idem || attempt >= 1) {
        throw new ApiError(0, { code: "network", message: t("web.error.network") });
      }
    }
  }
  const date = response.headers.get("date");
  if (date) {
    const measured = Date.parse(date) - Date.now();
    clockSkew = Math.abs(measured) > 1500 ? measured : 0;
  }
  if (text && response.ok) return response.text();
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || { code: "http", key: "err.http", message: t("web.error.unknown") };
    if (response.status === 401 && path !== "/api/login") forget();
    throw new ApiError(response.status, error);
  }
  return data;
}

export const get = (path, opts) => request("GET", path, opts);
export const post = (path, body, opts = {}) => request("POST", path, { body, ...opts });
export const patchJson = (path, body) => request("PATCH", path, { body });
export const del = (path) => request("DELETE", path);
/** PUT a text body as it is (the register's CSV). */
export const putText = (path, content, type) => request("PUT", path, { raw: content, type });

/** Log in: keep the token for this tab. */
export async function login(username, password) {
  const out = await post("/api/login", { username, password });
  sessionStorage.setItem(TOKEN, out.token);
  sessionStorage.setItem(USER, JSON.stringify(out.user));
  return out.user;
}

/** Log out (the token stops working at the server too). */
export async function logout() {
  try {
    await post("/api/logout", {});
  } catch (err) {
    // the session ends here whatever the server said
  }
  forget();
}

/** Fetch a file the API serves to staff (CSV report, the chain as JSON lines) and save it. */
export async function download(path, filename) {
  const content = await request("GET", path, { text: true });
  const blob = new Blob([content], { type: filename.endsWith(".csv") ? "text/csv" : "application/jsonl" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(link.href), 10000);
  return content;
}
