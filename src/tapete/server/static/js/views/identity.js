// A player's identity as the cashier (or the administrator, at the cashier's console) enters it: his DNI
// (8 digits) and birth date (18 or older), sent with PATCH /api/users/{name}; beside it what protection
// says of him: on the register of prohibited persons, excluded by himself (until when), identity missing.

import * as api from "../api.js";
import { $, clock, html, patch } from "../dom.js";
import { t } from "../i18n.js";

/** Keep `box` showing and editing the identity of player `name`; returns {render} for a new language. */
export function identityPanel(box, name) {
  let seen = null;
  const messages = { error: "", ok: "" };

  const render = () => {
    if (!name) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    if (!seen) {
      patch(box, html`<h2>${t("web.identity.title")}</h2><p class="muted">${messages.error || t("web.loading")}</p>`);
      return;
    }
    patch(
      box,
      html`<h2>${t("web.identity.title")}</h2>
        <p class="identity-status" id="identity-status">
          ${seen.prohibited ? html`<span class="badge badge--warn" id="identity-prohibited">${t("web.identity.prohibited")}</span>` : ""}
          ${seen.excluded_until ? html`<span class="badge badge--warn" id="identity-excluded">${t("web.identity.excluded", { until: clock(seen.excluded_until) })}</span>` : ""}
          ${seen.identified ? html`<span class="badge" id="identity-ok">${t("web.identity.complete")}</span>` : html`<span class="badge badge--warn" id="identity-missing">${t("web.identity.missing")}</span>`}
        </p>
        <form id="identity-form" class="mini-form" novalidate>
          <label for="identity-document">${t("web.identity.document")}</label>
          <input id="identity-document" inputmode="numeric" maxlength="8" autocomplete="off" value="${seen.document || ""}" placeholder="12345678" aria-describedby="identity-error" />
          <label for="identity-birth">${t("web.identity.birth_date")}</label>
          <input id="identity-birth" type="date" value="${seen.birth_date || ""}" aria-describedby="identity-error" />
          <button type="submit" class="btn btn--primary" id="identity-submit">${t("web.identity.save")}</button>
          <p class="field-error" id="identity-error" role="alert">${messages.error}</p>
          <p class="ok" id="identity-saved" role="status">${messages.ok}</p>
        </form>`,
    );
  };

  const load = async () => {
    try {
      seen = await api.get(`/api/protection/players/${encodeURIComponent(name)}`);
    } catch (err) {
      messages.error = err.message;
    }
    render();
  };

  box.addEventListener("submit", async (event) => {
    if (event.target.id !== "identity-form") return;
    event.preventDefault();
    event.stopPropagation();
    messages.error = messages.ok = "";
    const body = {};
    const document = $("#identity-document", box).value.trim();
    const birth = $("#identity-birth", box).value.trim();
    if (document) body.document = document;
    if (birth) body.birth_date = birth;
    try {
      await api.patchJson(`/api/users/${encodeURIComponent(name)}`, body);
      messages.ok = t("web.identity.saved", { player: name });
      await load();
    } catch (err) {
      messages.error = err.message;
      render();
      $("#identity-document", box).value = document;
      $("#identity-birth", box).value = birth;
    }
  });

  render();
  if (name) load();
  return {
    render: () => {
      box._tapete = undefined;
      render();
    },
  };
}
