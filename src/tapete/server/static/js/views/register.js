// The administrator's register of persons prohibited from the games (Ley 29907): the register in force
// (how many entries, when loaded, by whom) and a CSV file (`document,since` per line) that replaces it
// whole, in one transaction, from which moment a player it holds is refused at login, buy-in, seat and
// bet. A line that does not read refuses the whole file, and the register in force stays.

import * as api from "../api.js";
import { $, clock, html, patch } from "../dom.js";
import { t } from "../i18n.js";

export async function mount(root, tabs) {
  let status = null;
  const messages = { error: "", ok: "" };
  root.innerHTML = `<section class="admin"><h1 id="admin-title"></h1><div id="admin-tabs"></div>
    <section class="panel" id="register-panel"></section></section>`;

  const render = () => {
    $("#admin-title", root).textContent = t("web.admin.title");
    patch($("#admin-tabs", root), tabs("register"));
    patch(
      $("#register-panel", root),
      html`<h2>${t("web.register.title")}</h2>
        <p class="muted">${t("web.register.help")}</p>
        <p id="register-status">${
          status && status.loaded_at
            ? t("web.register.status", { entries: status.entries.toLocaleString(), at: clock(status.loaded_at), by: status.loaded_by || "" })
            : t("web.register.empty")
        }</p>
        <form id="register-form" class="mini-form" novalidate>
          <label for="register-file">${t("web.register.file")}</label>
          <input id="register-file" type="file" accept=".csv,text/csv,text/plain" aria-describedby="register-error" />
          <button type="submit" class="btn btn--primary" id="register-submit">${t("web.register.upload")}</button>
          <p class="field-error" id="register-error" role="alert">${messages.error}</p>
          <p class="ok" id="register-ok" role="status">${messages.ok}</p>
        </form>`,
    );
  };

  const load = async () => {
    try {
      status = await api.get("/api/protection/register");
    } catch (err) {
      messages.error = err.message;
    }
    render();
  };

  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    messages.error = messages.ok = "";
    const file = $("#register-file", root).files[0];
    if (!file) {
      messages.error = t("web.register.choose");
      render();
      return;
    }
    try {
      const out = await api.putText("/api/protection/register", await file.text(), "text/csv");
      messages.ok = t("web.register.loaded", {
        entries: out.entries.toLocaleString(),
        players: out.players_on_it.length ? out.players_on_it.join(", ") : t("web.register.nobody"),
      });
    } catch (err) {
      messages.error = err.message;
    }
    await load();
  });

  render();
  await load();
  return {
    relang: () => {
      for (const el of root.querySelectorAll("[id]")) el._tapete = undefined;
      render();
    },
  };
}
