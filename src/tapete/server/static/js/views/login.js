// Log in: name and password; a refusal (wrong password, locked out) is said under the button.

import * as api from "../api.js";
import { $, html, patch } from "../dom.js";
import { t } from "../i18n.js";
import { loggedIn } from "../main.js";

export function mount(root) {
  const render = () => {
    const name = $("#login-name", root)?.value || "";
    patch(
      root,
      html`<section class="login card-panel" aria-labelledby="login-title">
        <h1 id="login-title">${t("web.login.title")}</h1>
        <p class="muted">${t("web.login.intro")}</p>
        <form id="login-form" novalidate>
          <label for="login-name">${t("web.login.name")}</label>
          <input id="login-name" name="username" autocomplete="username" required value="${name}" />
          <label for="login-password">${t("web.login.password")}</label>
          <input id="login-password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit" class="btn btn--primary" id="login-submit">${t("web.login.submit")}</button>
          <p class="field-error" id="login-error" role="alert"></p>
        </form>
      </section>`,
    );
  };
  render();
  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("#login-error", root);
    error.textContent = "";
    try {
      await api.login($("#login-name", root).value.trim(), $("#login-password", root).value);
      await loggedIn();
    } catch (err) {
      error.textContent = err.message;
    }
  });
  $("#login-name", root).focus();
  return { relang: render };
}
