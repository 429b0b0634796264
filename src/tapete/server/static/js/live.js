// A table's live state: the WebSocket of server.md (WS /ws/tables/{id}?token=…) pushes the whole state
// after every change, numbered by `seq`. When the connection drops the page says so, reconnects by
// itself (0.5 s, 1 s, 2 s … up to 5 s) with `&since=N` and catches up from the newest state; a ping every
// 15 s finds a connection that died silently. Pushes older than what the page shows are ignored.

import { get, token } from "./api.js";

export class TableLink {
  /** onState(state) after every newer state; onStatus("open" | "lost" | "closed") when the link changes. */
  constructor(tableId, { onState, onStatus, onDenied }) {
    this.tableId = tableId;
    this.onState = onState;
    this.onStatus = onStatus || (() => {});
    this.onDenied = onDenied || (() => {});
    this.seq = -1;
    this.delay = 500;
    this.closed = false;
    this.socket = null;
    this.pingTimer = null;
    this.pongDue = null;
    this.status = "connecting";
    this.connect();
  }

  /** A state from an HTTP answer (the play endpoints answer with the caller's state): shown if newer. */
  offer(state) {
    if (state && typeof state.seq === "number" && state.seq >= this.seq) {
      this.seq = state.seq;
      this.onState(state);
    }
  }

  connect() {
    if (this.closed) return;
    const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
    const since = this.seq >= 0 ? `&since=${this.seq}` : "";
    const url = `${scheme}//${window.location.host}/ws/tables/${this.tableId}?token=${encodeURIComponent(
      token() || "",
    )}${since}`;
    const socket = new WebSocket(url);
    this.socket = socket;
    let opened = false;
    socket.onopen = () => {
      opened = true;
      this.delay = 500;
      this.setStatus("open");
      this.pingTimer = window.setInterval(() => this.ping(), 15000);
    };
    socket.onmessage = (event) => {
      let data;
      try {
        data = JSON.parse(event.data);
      } catch (err) {
        return;
      }
      this.pongDue = null;
      if (data.type === "state" && data.seq >= this.seq) {
        this.seq = data.seq;
        this.onState(data.state);
      }
    };
    socket.onclose = (event) => {
      window.clearInterval(this.pingTimer);
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.closed) return;
      if (event.code === 4401 || event.code === 4403 || event.code === 4404) {
        // the server ended an open socket because its session ended (logged out elsewhere, idle): one
        // request over HTTP hears the 401 that takes the page back to its login
        if (event.code === 4401) get(`/api/tables/${this.tableId}/state`).catch(() => {});
        this.deny(event.code);
        return;
      }
      this.setStatus("lost");
      if (opened) {
        this.retry();
        return;
      }
      // A refused handshake (401 without a valid token, 404 for no such table) reaches a browser as a
      // bare close: the table's state over HTTP says whether to try again.
      get(`/api/tables/${this.tableId}/state`).then(
        () => this.retry(),
        (err) => ([401, 403, 404].includes(err.status) ? this.deny(4000 + err.status) : this.retry()),
      );
    };
  }

  retry() {
    if (this.closed) return;
    window.setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, 5000);
  }

  deny(code) {
    this.closed = true;
    this.setStatus("closed");
    this.onDenied(code);
  }

  ping() {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    if (this.pongDue !== null && Date.now() > this.pongDue) {
      socket.close();
      return;
    }
    socket.send(JSON.stringify({ type: "ping" }));
    if (this.pongDue === null) this.pongDue = Date.now() + 10000;
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.onStatus(status);
  }

  close() {
    this.closed = true;
    window.clearInterval(this.pingTimer);
    if (this.socket) this.socket.close();
    this.socket = null;
  }
}
