// The cashier: every player with his balance; one player's balance, what is free of his bets and his
// recent movements; buy-in (chips for his cash) and cash-out (his chips back to cash), each refusal said
// under its own field. Amounts typed in soles, sent in céntimos, each request with an Idempotency-Key.

import * as api from "../api.js";
import { $, clock, html, patch } from "../dom.js";
import { money, parseMoney, signed, t } from "../i18n.js";
import { identityPanel } from "./identity.js";

export async function mount(root, args) {
  const name = args[0] || null;
  let players = null;
  let detail = null;
  let filter = "";
  const messages = { list: "", buy: "", out: "", ok: "" };

  root.innerHTML = `<section class="cashier"><h1 id="cashier-title"></h1>
    <div class="two-col"><section class="panel" id="cashier-players"></section>
    <section class="panel" id="cashier-detail"></section></div>
    <section class="panel" id="cashier-identity" hidden></section></section>`;
  const identity = identityPanel($("#cashier-identity", root), name); // DNI and birth date (protection)

  const renderList = () => {
    const shown = (players || []).filter((p) => p.name.toLowerCase().includes(filter.toLowerCase()));
    patch(
      $("#cashier-players", root),
      html`<h2>${t("web.cashier.players")}</h2>
        <label for="player-filter">${t("web.cashier.find")}</label>
        <input id="player-filter" value="${filter}" autocomplete="off" />
        ${messages.list ? html`<p class="field-error" role="alert">${messages.list}</p>` : ""}
        <table class="grid"><thead><tr><th scope="col">${t("web.cashier.player")}</th><th scope="col" class="num">${t("web.me.balance")}</th></tr></thead>
        <tbody>${shown.map(
          (p) => html`<tr class="${p.name === name ? "row--here" : ""}"><td><a href="#/cashier/${encodeURIComponent(p.name)}" id="player-${p.name}">${p.name}</a></td><td class="num">${money(p.balance)}</td></tr>`,
        )}</tbody></table>`,
    );
  };

  const renderDetail = () => {
    const box = $("#cashier-detail", root);
    if (!name) {
      patch(box, html`<p class="muted">${t("web.cashier.choose")}</p>`);
      return;
    }
    if (!detail) {
      patch(box, html`<p class="muted">${messages.list || t("web.loading")}</p>`);
      return;
    }
    patch(
      box,
      html`<h2 id="cashier-player">${detail.player}</h2>
        <p class="balance">${t("web.me.balance")}: <strong id="cashier-balance">${money(detail.balance)}</strong>
          · ${t("web.me.available")}: <strong id="cashier-available">${money(detail.available)}</strong></p>
        <p class="ok" role="status" id="cashier-ok">${messages.ok}</p>
        <div class="two-forms">
          <form id="buy-in-form" class="mini-form">
            <label for="buy-in-amount">${t("web.cashier.buy_in")}</label>
            <input id="buy-in-amount" inputmode="decimal" placeholder="100.00" aria-describedby="buy-in-error" />
            <button type="submit" class="btn btn--primary" id="buy-in-submit">${t("web.cashier.buy_in_submit")}</button>
            <p class="field-error" id="buy-in-error" role="alert">${messages.buy}</p>
          </form>
          <form id="cash-out-form" class="mini-form">
            <label for="cash-out-amount">${t("web.cashier.cash_out")}</label>
            <input id="cash-out-amount" inputmode="decimal" placeholder="100.00" aria-describedby="cash-out-error" />
            <button type="submit" class="btn" id="cash-out-submit">${t("web.cashier.cash_out_submit")}</button>
            <p class="field-error" id="cash-out-error" role="alert">${messages.out}</p>
          </form>
        </div>
        <h3>${t("web.cashier.movements")}</h3>
        <table class="grid" id="movements"><thead><tr>
          <th scope="col">${t("web.col.when")}</th><th scope="col">${t("web.col.kind")}</th><th scope="col" class="num">${t("web.col.amount")}</th>
          <th scope="col" class="num">${t("web.col.balance_after")}</th><th scope="col">${t("web.col.where")}</th></tr></thead>
        <tbody>${detail.movements.map(
          (m) => html`<tr><td>${clock(m.at)}</td><td>${t(`web.ledger.${m.kind}`)}</td><td class="num ${m.amount > 0 ? "plus" : "minus"}">${signed(m.amount)}</td>
            <td class="num">${money(m.balance_after)}</td><td>${m.table ? t("web.cashier.where", { table: m.table, round: m.round ?? "" }) : ""}</td></tr>`,
        )}</tbody></table>`,
    );
  };

  const render = () => {
    $("#cashier-title", root).textContent = t("web.cashier.title");
    renderList();
    renderDetail();
  };

  const load = async () => {
    try {
      players = (await api.get("/api/players")).players;
      if (name) detail = await api.get(`/api/cashier/players/${encodeURIComponent(name)}`);
      messages.list = "";
    } catch (err) {
      messages.list = err.message;
    }
    render();
  };

  root.addEventListener("input", (event) => {
    if (event.target.id === "player-filter") {
      filter = event.target.value;
      renderList();
    }
  });
  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    const out = event.target.id === "cash-out-form";
    const field = $(out ? "#cash-out-amount" : "#buy-in-amount", root);
    const slot = out ? "out" : "buy";
    messages.buy = messages.out = messages.ok = "";
    try {
      const amount = parseMoney(field.value);
      if (amount <= 0) throw new Error(t("amount.positive"));
      const done = await api.post(`/api/cashier/${out ? "cash-out" : "buy-in"}`, { player: name, amount }, { idem: true });
      messages.ok = t(out ? "web.cashier.paid_out" : "web.cashier.bought", { amount: money(amount), player: name, balance: money(done.balance) });
      await load();
    } catch (err) {
      messages[slot] = err.message;
      render();
      const again = $(out ? "#cash-out-amount" : "#buy-in-amount", root);
      again.value = field.value;
      again.focus();
    }
  });
  render();
  await load();
  return {
    relang: () => {
      for (const el of root.querySelectorAll("[id]")) el._tapete = undefined;
      render();
      identity.render();
    },
  };
}
