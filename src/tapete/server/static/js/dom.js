// Small DOM helpers: HTML built from tagged templates with every value escaped, regions patched only
// when their content changed (so a push from the table does not steal the keyboard focus), and a polite
// live region for screen readers.

/** Text that is already HTML (the result of `html`), inserted as is. */
export class Raw {
  constructor(text) {
    this.text = text;
  }
  toString() {
    return this.text;
  }
}

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** A value as HTML text: escaped, unless it is Raw; lists joined; null, undefined and false are empty. */
export function esc(value) {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Raw) return value.text;
  if (Array.isArray(value)) return value.map(esc).join("");
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

/** html`<p>${name}</p>`: a template whose every interpolation is escaped (see esc). */
export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i += 1) out += esc(values[i]) + strings[i + 1];
  return new Raw(out);
}

/** Trusted HTML text (our own markup, never a value from a person or the server). */
export function raw(text) {
  return new Raw(text);
}

/** Set a region's content only when it changed; keep the focus on the element with the same id. */
export function patch(el, content) {
  if (!el) return;
  const text = esc(content);
  if (el._tapete === text) return;
  el._tapete = text;
  const active = document.activeElement;
  const focusId = active && active.id && el.contains(active) ? active.id : null;
  // a field being typed in keeps its caret where it was (its text is the caller's to keep)
  const caret = focusId && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
  el.innerHTML = text;
  if (focusId) {
    const again = document.getElementById(focusId);
    if (again) {
      again.focus();
      if (caret && typeof again.setSelectionRange === "function") {
        try {
          again.setSelectionRange(caret[0], caret[1]);
        } catch (_err) {
          // a field kind without a caret (number, checkbox): the focus is enough
        }
      }
    }
  }
}

/** Say something to screen readers (the page's polite live region). */
export function announce(text) {
  const region = document.getElementById("announce");
  if (!region || !text) return;
  region.textContent = "";
  window.setTimeout(() => {
    region.textContent = text;
  }, 30);
}

/** The first element matching `selector` under `root` (document by default). */
export function $(selector, root = document) {
  return root.querySelector(selector);
}

/** Run `fn(event, target)` for clicks on elements matching `selector` inside `root`. */
export function onClick(root, selector, fn) {
  root.addEventListener("click", (event) => {
    const target = event.target.closest(selector);
    if (target && root.contains(target)) fn(event, target);
  });
}

/** A random key for Idempotency-Key (works outside secure contexts, unlike crypto.randomUUID). */
export function randomKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A date-time from the server (ISO, UTC) as local time, to the second. */
export function clock(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(
    d.getMinutes(),
  )}:${pad(d.getSeconds())}`;
}
