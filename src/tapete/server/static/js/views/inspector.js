// The inspector reads and changes nothing: the tables and their rounds; the recall of any round as one
// timeline (cards in deal order, decisions with their times and who took them, procedures, ledger
// entries), with every bettor's stakes, payouts and balances and the ledger entries listed; the check of
// a table's hash chain; the reports per period (drop, win, hold) with their CSV; the significant events;
// the players' claims, each read beside its round's recall and resolved with an outcome and a text, and
// the deck-change requests (the inspector's own asked from here) with who asked, why, and who closed them.

import * as api from "../api.js";
import { cardText } from "../cards.js";
import { $, clock, html, patch } from "../dom.js";
import { has, money, signed, t } from "../i18n.js";
import { seatName } from "../felt.js";
import { eventLine } from "./history.js";

function tabs(here) {
  return html`<nav class="tabs" aria-label="${t("web.inspector.title")}">
    ${["tables", "reports", "events", "claims"].map(
      (k) => html`<a href="#/inspector${k === "tables" ? "" : `/${k}`}" id="tab-${k}" class="tab${here === k ? " tab--here" : ""}" ${here === k ? html`aria-current="page"` : ""}>${t(`web.inspector.${k}`)}</a>`,
    )}</nav>`;
}

/** A ledger account in words: "wallet:ana" is Ana's chips, "table:3" the table, the house, the cage. */
export function accountName(account) {
  const [kind, ...rest] = String(account || "").split(":");
  const name = rest.join(":");
  return has(`web.account.${kind}`) ? t(`web.account.${kind}`, { name }) : name || kind;
}

/** What a significant event's details say, in words (amounts in soles, statuses and roles named); what
 * the page has no words for is counted, never shown as the record's machine text. */
export function eventDetails(details) {
  const out = [];
  let more = 0;
  for (const [k, v] of Object.entries(details || {})) {
    if (v === null || v === undefined || v === "") continue;
    if (!has(`web.detail.${k}`) || typeof v === "object") {
      more += 1;
      continue;
    }
    let value = v;
    if (k === "amount" && Number.isInteger(v)) value = money(v);
    else if (k === "from" && has(`web.status.${v}`)) value = t(`web.status.${v}`);
    else if (k === "role" && has(`web.role.${v}`)) value = t(`web.role.${v}`);
    else if (k === "game" && has(`game.${v}`)) value = t(`game.${v}`);
    else if (typeof v === "boolean") value = t(v ? "web.yes" : "web.no");
    out.push(t(`web.detail.${k}`, { value }));
  }
  if (more) out.push(t("web.detail.more", { n: more }));
  return out.join(" · ");
}

function cardTo(game, c) {
  if (c.to === "seat") return seatName(game, c.seat) + (c.hand ? ` · ${t("web.hand", { hand: c.hand + 1 })}` : "");
  if (c.to === "dealer") return t("dealer.name");
  if (c.to === "community") return t("web.sd.community");
  return t(`pyb.side.${c.to}`);
}

/** What a step recorded beside its name: the inspection's result and jokers, who cut and the cut card's
 * depth, the deck-change request a change answered. */
function procedureDetail(p) {
  if (p.step === "inspect") {
    return ` · ${t(p.result === "rejected" ? "web.dealer.inspect_rejected" : "web.dealer.inspect_complete")} · ${t("web.recall.jokers", { n: p.jokers_removed ?? 0 })}`;
  }
  if (p.step === "cut") {
    const who = (p.event_by ?? "dealer") === "dealer" ? t("web.dealer.cut_by_dealer") : p.event_by;
    return ` · ${t("web.recall.cut_by", { who })}${p.cut_card_depth ? ` · ${t("web.recall.cut_card", { n: p.cut_card_depth })}` : ""}`;
  }
  if (p.step === "deck_change" && p.request) return ` · ${t("web.recall.request", { n: p.request, by: p.requested_by })}`;
  return "";
}

/** The recall as one timeline: every card, decision, procedure, correction and ledger entry by time. */
export function timeline(recall) {
  const game = recall.game;
  const rows = [];
  for (const p of recall.procedures) {
    const what = p.type === "procedure" ? t(`web.procedure.${p.step}`) : p.type === "new_pack" ? t(p.deck_change ? "web.procedure.deck_change" : "web.procedure.new_pack") : t(`web.event.${p.type}`);
    rows.push({ at: p.at, seq: p.seq, kind: "procedure", what: `${what}${procedureDetail(p)}${p.reason ? ` — ${p.reason}` : ""}${p.cards ? ` (${p.cards.map(cardText).join(" ")})` : ""}`, by: p.by });
  }
  for (const c of recall.cards) {
    const line = t(c.superseded ? "web.recall.card_superseded" : "web.recall.card", { card: cardText(c.card), to: cardTo(game, c) });
    rows.push({ at: c.at, seq: c.seq, kind: "card", what: c.face ? `${line} (${t(`web.face.${c.face}`)})` : line, by: c.by });
  }
  for (const d of recall.decisions) {
    rows.push({ at: d.at, seq: d.seq, kind: "decision", what: eventLine(game, d), by: d.by });
  }
  for (const c of recall.corrections) {
    rows.push({ at: c.at, seq: c.seq, kind: "correction", what: t("web.recall.correction", { was: cardText(c.was), now: cardText(c.now), reason: c.reason }), by: c.by });
  }
  for (const e of recall.ledger) {
    rows.push({ at: e.at, seq: e.seq ?? Infinity, id: e.id, kind: "ledger", what: t("web.recall.ledger", { id: e.id, account: accountName(e.account), amount: signed(e.amount), kind: t(`web.ledger.${e.kind}`) }), by: e.by });
  }
  if (recall.void_reason) {
    const voided = (recall.events || []).find((e) => e.type === "round_voided");
    const key = recall.void_confirmed_by ? "web.recall.void" : "web.recall.void_waiting";
    rows.push({
      at: voided ? voided.at : recall.ended_at || recall.started_at,
      seq: voided ? voided.seq : Infinity,
      kind: "void",
      what: t(key, { asked: recall.void_requested_by || "", confirmed: recall.void_confirmed_by || "", reason: recall.void_reason }),
      by: recall.void_confirmed_by || recall.void_requested_by,
    });
  }
  rows.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : (a.seq - b.seq) || ((a.id || 0) - (b.id || 0))));
  return rows;
}

function recallView(recall) {
  const rows = timeline(recall);
  const bettors = Object.entries(recall.bettors);
  return html`<h2 id="recall-title">${t("web.recall.title", { round: recall.round, status: t(`web.round_status.${recall.status}`) })}</h2>
    <p class="muted">${clock(recall.started_at)} → ${clock(recall.ended_at)}</p>
    <h3>${t("web.recall.bettors")}</h3>
    <table class="grid" id="recall-bettors"><thead><tr><th scope="col">${t("web.cashier.player")}</th><th scope="col">${t("web.recall.stakes")}</th>
      <th scope="col" class="num">${t("web.recall.net")}</th><th scope="col" class="num">${t("web.recall.before")}</th><th scope="col" class="num">${t("web.recall.after")}</th></tr></thead>
    <tbody>${bettors.map(([player, b]) => {
      const bal = recall.balances[player] || {};
      return html`<tr><td>${player}</td><td>${b.stakes.map((s) => `${seatName(recall.game, s.seat)} ${t(`spot.${s.spot}`)} ${money(s.amount)}`).join(" · ")}</td>
        <td class="num">${b.totals ? signed(b.totals.net) : ""}</td><td class="num">${bal.before !== undefined ? money(bal.before) : ""}</td><td class="num">${bal.after !== undefined ? money(bal.after) : ""}</td></tr>`;
    })}</tbody></table>
    <h3>${t("web.recall.timeline")}</h3>
    <ol class="timeline" id="timeline">${rows.map(
      (r) => html`<li class="timeline__row timeline__row--${r.kind}"><time datetime="${r.at}">${clock(r.at)}</time>
        <span class="timeline__kind">${t(`web.recall.kind.${r.kind}`)}</span><span class="timeline__what">${r.what}</span>
        <span class="timeline__by">${r.by || ""}</span></li>`,
    )}</ol>
    <h3>${t("web.recall.ledger_title")}</h3>
    <table class="grid" id="ledger"><thead><tr><th scope="col">${t("web.col.id")}</th><th scope="col">${t("web.col.when")}</th><th scope="col">${t("web.col.account")}</th>
      <th scope="col">${t("web.col.kind")}</th><th scope="col">${t("web.cashier.player")}</th><th scope="col">${t("web.col.spot")}</th>
      <th scope="col" class="num">${t("web.col.amount")}</th><th scope="col" class="num">${t("web.col.balance_after")}</th></tr></thead>
    <tbody>${recall.ledger.map(
      (e) => html`<tr><td>${e.id}</td><td>${clock(e.at)}</td><td>${accountName(e.account)}</td><td>${t(`web.ledger.${e.kind}`)}</td><td>${e.player || ""}</td>
        <td>${e.spot ? t(`spot.${e.spot}`) : ""}</td><td class="num">${signed(e.amount)}</td><td class="num">${money(e.balance_after)}</td></tr>`,
    )}</tbody></table>`;
}

async function tablesTab(root, args) {
  const tableId = args[0] ? Number(args[0]) : null;
  const roundNo = args[1] ? Number(args[1]) : null;
  let tables = [];
  let rounds = null;
  let recall = null;
  let verify = null;
  let error = "";
  root.innerHTML = `<section class="inspector"><h1 id="inspector-title"></h1><div id="inspector-tabs"></div>
    <div class="three-col"><section class="panel" id="insp-tables"></section><section class="panel" id="insp-rounds"></section>
    <section class="panel panel--wide" id="insp-recall"></section></div></section>`;
  const render = () => {
    $("#inspector-title", root).textContent = t("web.inspector.title");
    patch($("#inspector-tabs", root), tabs("tables"));
    patch(
      $("#insp-tables", root),
      html`<h2>${t("web.inspector.tables")}</h2>${error ? html`<p class="field-error" role="alert">${error}</p>` : ""}
      <ul class="plain">${tables.map((tb) => html`<li><a id="insp-table-${tb.id}" href="#/inspector/${tb.id}" class="${tb.id === tableId ? "here" : ""}">${tb.name}</a>
        <span class="muted">${t(`game.${tb.game}`)} · ${t(`web.mode.${tb.mode}`)}</span></li>`)}</ul>`,
    );
    const table = tables.find((tb) => tb.id === tableId);
    patch(
      $("#insp-rounds", root),
      table
        ? html`<h2>${table.name}</h2>
          <p><button type="button" class="btn" id="verify">${t("web.inspector.verify")}</button>
            <button type="button" class="btn btn--quiet" id="download-log">${t("web.inspector.log")}</button></p>
          ${verify ? html`<p id="verify-result" role="status" class="${verify.ok ? "ok" : "field-error"}">${verify.ok ? t("web.inspector.verify_ok", { n: verify.records }) : t("web.inspector.verify_bad", { k: verify.first_bad, reason: verify.reason })}</p>` : ""}
          <h3>${t("web.inspector.rounds")}</h3>
          ${rounds && !rounds.length ? html`<p class="muted">${t("web.inspector.no_rounds")}</p>` : ""}
          <ol class="plain rounds">${(rounds || []).slice().reverse().map((r) => html`<li><a id="insp-round-${r.round}" href="#/inspector/${tableId}/${r.round}" class="${r.round === roundNo ? "here" : ""}">${t("web.round.n", { round: r.round })}</a>
            <span class="muted">${t(`web.round_status.${r.status}`)} · ${clock(r.started_at)}</span></li>`)}</ol>`
        : html`<p class="muted">${t("web.inspector.choose_table")}</p>`,
    );
    patch($("#insp-recall", root), recall ? recallView(recall) : html`<p class="muted">${tableId ? t("web.inspector.choose_round") : ""}</p>`);
  };
  const load = async () => {
    try {
      tables = (await api.get("/api/tables")).tables;
      if (tableId) rounds = (await api.get(`/api/tables/${tableId}/rounds`)).rounds;
      if (tableId && roundNo) recall = await api.get(`/api/tables/${tableId}/rounds/${roundNo}`);
      error = "";
    } catch (err) {
      error = err.message;
    }
    render();
  };
  root.addEventListener("click", async (event) => {
    if (event.target.closest("#verify")) {
      try {
        verify = await api.get(`/api/tables/${tableId}/verify`);
      } catch (err) {
        verify = { ok: false, first_bad: "?", reason: err.message };
      }
      render();
    } else if (event.target.closest("#download-log")) {
      await api.download(`/api/tables/${tableId}/log`, `table-${tableId}.jsonl`);
    }
  });
  render();
  await load();
  return { relang: () => { for (const el of root.querySelectorAll("[id]")) el._tapete = undefined; render(); } };
}

async function reportsTab(root) {
  let rows = null;
  let error = "";
  let query = { from: "", to: "" };
  root.innerHTML = `<section class="inspector"><h1 id="inspector-title"></h1><div id="inspector-tabs"></div><section class="panel" id="insp-report"></section></section>`;
  const render = () => {
    $("#inspector-title", root).textContent = t("web.inspector.title");
    patch($("#inspector-tabs", root), tabs("reports"));
    patch(
      $("#insp-report", root),
      html`<h2>${t("web.reports.title")}</h2>
      <form id="report-form" class="inline-form">
        <label for="report-from">${t("web.reports.from")}</label><input type="date" id="report-from" value="${query.from}" />
        <label for="report-to">${t("web.reports.to")}</label><input type="date" id="report-to" value="${query.to}" />
        <button type="submit" class="btn btn--primary" id="report-submit">${t("web.reports.show")}</button>
        <button type="button" class="btn" id="report-csv">${t("web.reports.csv")}</button>
      </form>
      <p class="field-error" role="alert" id="report-error">${error}</p>
      ${rows
        ? html`<table class="grid" id="report"><thead><tr><th scope="col">${t("web.col.table")}</th><th scope="col">${t("web.col.game")}</th><th scope="col" class="num">${t("web.reports.rounds")}</th>
          <th scope="col" class="num">${t("web.reports.drop")}</th><th scope="col" class="num">${t("web.reports.win")}</th><th scope="col" class="num">${t("web.reports.hold")}</th></tr></thead>
          <tbody>${rows.map((r) => html`<tr><td>${r.name}</td><td>${t(`game.${r.game}`)}</td><td class="num">${r.rounds}</td><td class="num">${money(r.drop)}</td>
            <td class="num">${signed(r.win)}</td><td class="num">${r.hold_percent.toFixed(2)} %</td></tr>`)}</tbody></table>`
        : ""}`,
    );
  };
  const params = () => {
    const p = new URLSearchParams();
    if (query.from) p.set("from", query.from);
    if (query.to) p.set("to", query.to);
    return p;
  };
  const load = async () => {
    try {
      rows = (await api.get(`/api/reports/tables?${params()}`)).tables;
      error = "";
    } catch (err) {
      error = err.message;
    }
    render();
  };
  root.addEventListener("submit", (event) => {
    event.preventDefault();
    query = { from: $("#report-from", root).value, to: $("#report-to", root).value };
    load();
  });
  root.addEventListener("click", async (event) => {
    if (!event.target.closest("#report-csv")) return;
    query = { from: $("#report-from", root).value, to: $("#report-to", root).value };
    const p = params();
    p.set("format", "csv");
    try {
      await api.download(`/api/reports/tables?${p}`, `tapete-report${query.from ? `-${query.from}` : ""}${query.to ? `-${query.to}` : ""}.csv`);
    } catch (err) {
      error = err.message;
      render();
    }
  });
  render();
  await load();
  return { relang: () => { for (const el of root.querySelectorAll("[id]")) el._tapete = undefined; render(); } };
}

async function eventsTab(root) {
  let events = null;
  let error = "";
  root.innerHTML = `<section class="inspector"><h1 id="inspector-title"></h1><div id="inspector-tabs"></div><section class="panel" id="insp-events"></section></section>`;
  const render = () => {
    $("#inspector-title", root).textContent = t("web.inspector.title");
    patch($("#inspector-tabs", root), tabs("events"));
    patch(
      $("#insp-events", root),
      html`<h2>${t("web.events.title")}</h2>${error ? html`<p class="field-error" role="alert">${error}</p>` : ""}
      <table class="grid" id="events"><thead><tr><th scope="col">${t("web.col.id")}</th><th scope="col">${t("web.col.when")}</th><th scope="col">${t("web.col.kind")}</th>
        <th scope="col">${t("web.col.actor")}</th><th scope="col">${t("web.col.table")}</th><th scope="col">${t("web.col.details")}</th></tr></thead>
      <tbody>${(events || []).slice().reverse().map((e) => html`<tr><td>${e.id}</td><td>${clock(e.at)}</td><td>${has(`web.event.${e.kind}`) ? t(`web.event.${e.kind}`) : t("web.event.other")}</td><td>${e.actor || ""}</td>
        <td>${e.table ?? ""}</td><td>${eventDetails(e.details)}</td></tr>`)}</tbody></table>`,
    );
  };
  try {
    events = (await api.get("/api/events?limit=500")).events;
  } catch (err) {
    error = err.message;
  }
  render();
  return { relang: () => { for (const el of root.querySelectorAll("[id]")) el._tapete = undefined; render(); } };
}

async function claimsTab(root, args) {
  const claimId = args[1] ? Number(args[1]) : null;
  let claims = [];
  let requests = [];
  let tables = [];
  let open = null;
  let error = "";
  let resolveError = "";
  let requestError = "";
  let requestOk = "";
  root.innerHTML = `<section class="inspector"><h1 id="inspector-title"></h1><div id="inspector-tabs"></div>
    <div class="three-col"><section class="panel" id="insp-claims"></section><section class="panel" id="insp-requests"></section>
    <section class="panel panel--wide" id="insp-claim"></section></div></section>`;
  const render = () => {
    $("#inspector-title", root).textContent = t("web.inspector.title");
    patch($("#inspector-tabs", root), tabs("claims"));
    patch(
      $("#insp-claims", root),
      html`<h2>${t("web.claims.title")}</h2>${error ? html`<p class="field-error" role="alert">${error}</p>` : ""}
      ${claims.length ? "" : html`<p class="muted">${t("web.claims.none")}</p>`}
      <ul class="plain" id="claims-list">${claims.map((c) => html`<li><a id="insp-claim-${c.id}" href="#/inspector/claims/${c.id}" class="${c.id === claimId ? "here" : ""}">${t("web.claims.line", { id: c.id, player: c.player, table: c.table, round: c.round })}</a>
        <span class="muted">${t(`web.claims.status.${c.status}`)}</span></li>`)}</ul>`,
    );
    const live = tables.filter((tb) => tb.mode === "live");
    patch(
      $("#insp-requests", root),
      html`<h2>${t("web.deck_request.list")}</h2>
      <ul class="plain" id="requests-list">${requests.map((r) => html`<li id="insp-request-${r.request}">${t("web.deck_request.line", { n: r.request, table: r.table, by: r.by, reason: r.reason })}
        <span class="muted">${r.status === "closed" ? t("web.deck_request.closed", { by: r.closed_by }) : t("web.deck_request.open")}</span></li>`)}</ul>
      <form id="insp-request-form" autocomplete="off">
        <h3>${t("web.deck_request.title")}</h3>
        <label for="insp-request-table">${t("web.col.table")}</label>
        <select id="insp-request-table">${live.map((tb) => html`<option value="${tb.id}">${tb.name}</option>`)}</select>
        <label for="insp-request-reason">${t("web.reason")}</label>
        <input id="insp-request-reason" maxlength="2000" />
        <button type="submit" class="btn" id="insp-request-submit">${t("web.deck_request.submit")}</button>
        <p class="field-error" role="alert">${requestError}</p><p class="ok" role="status" id="insp-request-ok">${requestOk}</p>
      </form>`,
    );
    const c = open && open.claim;
    patch(
      $("#insp-claim", root),
      c
        ? html`<h2 id="claim-title">${t("web.claims.line", { id: c.id, player: c.player, table: c.table, round: c.round })}</h2>
          <blockquote id="claim-text">${c.text}</blockquote>
          ${c.status === "resolved"
            ? html`<p id="claim-resolution" class="${c.resolution.outcome === "upheld" ? "ok" : "field-error"}">${t("web.claim.resolved", { outcome: t(`web.claim.outcome.${c.resolution.outcome}`), text: c.resolution.text, by: c.resolution.by })}</p>`
            : html`<form id="resolve-form" autocomplete="off">
                <label for="resolve-outcome">${t("web.claims.outcome")}</label>
                <select id="resolve-outcome"><option value="upheld">${t("web.claim.outcome.upheld")}</option><option value="rejected">${t("web.claim.outcome.rejected")}</option></select>
                <label for="resolve-text">${t("web.claims.resolution")}</label>
                <textarea id="resolve-text" rows="3" maxlength="2000"></textarea>
                <button type="submit" class="btn btn--primary" id="resolve-submit">${t("web.claims.resolve")}</button>
                <p class="field-error" role="alert">${resolveError}</p></form>`}
          <div class="claim-recall" id="claim-recall">${open.recall ? recallView(open.recall) : ""}</div>`
        : html`<p class="muted">${t("web.claims.choose")}</p>`,
    );
  };
  const load = async () => {
    try {
      [claims, requests, tables] = await Promise.all([
        api.get("/api/claims").then((d) => d.claims),
        api.get("/api/deck-change-requests").then((d) => d.requests),
        api.get("/api/tables").then((d) => d.tables),
      ]);
      if (claimId) open = await api.get(`/api/claims/${claimId}`);
      error = "";
    } catch (err) {
      error = err.message;
    }
    render();
  };
  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (event.target.id === "resolve-form") {
      try {
        const body = { outcome: $("#resolve-outcome", root).value, text: $("#resolve-text", root).value };
        await api.post(`/api/claims/${claimId}/resolution`, body, { idem: true });
        resolveError = "";
      } catch (err) {
        resolveError = err.message;
      }
    } else if (event.target.id === "insp-request-form") {
      try {
        const table = Number($("#insp-request-table", root).value);
        const answer = await api.post(`/api/tables/${table}/deck-change-requests`, { reason: $("#insp-request-reason", root).value }, { idem: true });
        requestError = "";
        requestOk = t("web.deck_request.sent", { n: answer.request });
      } catch (err) {
        requestError = err.message;
        requestOk = "";
      }
    }
    for (const el of root.querySelectorAll("[id]")) el._tapete = undefined;
    await load();
  });
  render();
  await load();
  return { relang: () => { for (const el of root.querySelectorAll("[id]")) el._tapete = undefined; render(); } };
}

export function mount(root, args) {
  if (args[0] === "claims") return claimsTab(root, args);
  if (args[0] === "reports") return reportsTab(root);
  if (args[0] === "events") return eventsTab(root);
  return tablesTab(root, args);
}
