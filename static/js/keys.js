// The page's keyboard. Each key is declared once, and that declaration gives both what the key
// does and its line in the list that `?` opens (and in a page's `[data-keys-line]`):
// - in the markup, `data-key="g"` (key names, space-separated) on the element the key operates,
//   with `data-key-help`: a button, link, summary, checkbox or radio is clicked, a text box or
//   select is focused, an <option> is chosen (its select changes), a form is submitted;
// - in a page's script, `pageKeys.add([{ keys: "j k", help, run(name), when() }])`.
// Single keys never act while a text box has the focus (they are typed there) and Space on a
// focused control is that control's; `Esc` leaves a text box. Keys with Ctrl or Alt act
// everywhere. No shortcut leaves the focus in a text box unless going there is its purpose.
(function () {
  "use strict";

  const scripted = []; // { keys: [...], label, help, group, run, when }
  const GLOBAL = "Everywhere";

  const typing = (t) =>
    t instanceof Element &&
    t.matches("textarea, select, input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]):not([type=reset])");
  const control = (t) => t instanceof Element && t.matches("input, button, select, textarea, summary, a[href]");

  // The event as a key name: "j", "J" (Shift is in the letter), "Space", "Ctrl+Enter", "Alt+1".
  function keyName(event) {
    let key = event.key === " " ? "Space" : event.key;
    // With Alt, macOS types another character ("¡" for Alt+1): the key's place says which.
    if (event.altKey && /^Digit[0-9]$/.test(event.code)) key = event.code.slice(5);
    return (event.ctrlKey || event.metaKey ? "Ctrl+" : "") + (event.altKey ? "Alt+" : "") + key;
  }

  const split = (keys) => (Array.isArray(keys) ? keys : String(keys).trim().split(/\s+/));

  // --- Keys declared in the markup.
  function target(el) {
    return el instanceof HTMLOptionElement ? el.closest("select") : el;
  }

  function available(el) {
    const t = target(el);
    return !!t && !t.disabled && !t.closest("[inert]") && t.getClientRects().length > 0;
  }

  function textOf(el) {
    if (!el) return "";
    const copy = el.cloneNode(true);
    for (const kbd of copy.querySelectorAll("kbd, .error")) kbd.remove();
    // What the removed key hints leave: "Confidence //" is "Confidence".
    return copy.textContent.replace(/\s+/g, " ").replace(/[\s/+–·,]+$/, "").trim();
  }

  function helpOf(el) {
    if (el.dataset.keyHelp) return el.dataset.keyHelp;
    if (el instanceof HTMLOptionElement) {
      const select = el.closest("select");
      return `${textOf(select.labels && select.labels[0])}: ${el.textContent.trim()}`;
    }
    if (el.labels && el.labels[0]) return textOf(el.labels[0]);
    return el.getAttribute("aria-label") || textOf(el);
  }

  function operate(el) {
    if (el instanceof HTMLOptionElement) {
      const select = el.closest("select");
      select.value = el.value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
    } else if (el instanceof HTMLFormElement) {
      el.requestSubmit();
    } else if (typing(el)) {
      el.focus();
      if (el instanceof HTMLTextAreaElement) el.setSelectionRange(el.value.length, el.value.length);
    } else {
      el.click(); // a box or radio fires its change event; a summary opens its details
      if (el.matches("summary")) el.focus(); // ...and is brought into view
    }
  }

  function marked() {
    return Array.from(document.querySelectorAll("[data-key]")).map((el) => ({
      keys: split(el.dataset.key),
      label: el.dataset.keyLabel,
      help: helpOf(el),
      group: "This page",
      run: () => operate(el),
      when: () => available(el),
      element: el,
    }));
  }

  function declared() {
    return [...scripted, ...marked()];
  }

  function find(name) {
    // A key declared twice (e.g. `n` on two forms) acts where it is available first.
    return declared().find((entry) => entry.keys.includes(name) && (!entry.when || entry.when()));
  }

  // --- The list of keys: the overlay (`?`) and a page's own line.
  function kbd(name) {
    const keys = document.createDocumentFragment();
    name.split("+").forEach((part, index) => {
      if (index) keys.append("+");
      const k = document.createElement("kbd");
      k.textContent = part === "Escape" ? "Esc" : part;
      keys.append(k);
    });
    return keys;
  }

  // "j/k", or the entry's own label ("x or Space", "Alt+1…9"): key names become <kbd>s.
  function keysOf(entry) {
    const out = document.createDocumentFragment();
    if (entry.label) {
      entry.label.split(/(\s+|\/)/).forEach((part) => {
        if (!part.trim() || part === "/" || part === "or") out.append(part);
        else out.append(kbd(part));
      });
    } else {
      entry.keys.forEach((name, index) => {
        if (index) out.append("/");
        out.append(kbd(name));
      });
    }
    return out;
  }

  const everywhere = [
    { keys: ["?"], help: "show or hide this list of keys", group: GLOBAL },
    { keys: ["Escape"], label: "Esc", help: "leave a text box (the single keys act again)", group: GLOBAL },
  ];

  function fillLine(line) {
    line.textContent = "";
    const entries = declared().filter((e) => e.group !== GLOBAL && (!e.element || !target(e.element).disabled));
    entries.forEach((entry, index) => {
      if (index) line.append(" · ");
      line.append(keysOf(entry), ` ${entry.help}`);
    });
    if (entries.length) line.append(" · ");
    line.append(kbd("?"), " all keys");
  }

  let overlay = null;
  function buildOverlay() {
    overlay = document.createElement("dialog");
    overlay.id = "keys-overlay";
    overlay.className = "keys-overlay";
    overlay.setAttribute("aria-labelledby", "keys-overlay-title");
    const title = document.createElement("h2");
    title.id = "keys-overlay-title";
    title.textContent = "Keys on this page";
    const body = document.createElement("div");
    body.className = "keys-overlay-body";
    const note = document.createElement("p");
    note.className = "muted small";
    note.textContent =
      "Single keys do nothing while you type in a text box: Esc leaves it. " +
      "Keys with Ctrl or Alt work everywhere. Greyed keys do nothing right now.";
    const close = document.createElement("button");
    close.type = "button";
    close.className = "secondary";
    close.textContent = "Close";
    close.addEventListener("click", () => overlay.close());
    // The close button first: the dialog focuses it, and the list stays in view from its top.
    const head = document.createElement("div");
    head.className = "keys-overlay-head";
    head.append(title, close);
    overlay.append(head, body, note);
    document.body.append(overlay);
  }

  function fillOverlay() {
    const body = overlay.querySelector(".keys-overlay-body");
    body.textContent = "";
    const groups = new Map();
    const seen = new Set();
    for (const entry of [...declared(), ...everywhere]) {
      const id = `${entry.keys.join(" ")}|${entry.help}`;
      if (seen.has(id)) continue;
      seen.add(id);
      if (!groups.has(entry.group)) groups.set(entry.group, []);
      groups.get(entry.group).push(entry);
    }
    for (const [group, entries] of groups) {
      const heading = document.createElement("h3");
      heading.textContent = group;
      const list = document.createElement("dl");
      for (const entry of entries) {
        const dt = document.createElement("dt");
        dt.append(keysOf(entry));
        const dd = document.createElement("dd");
        dd.textContent = entry.help;
        if (entry.when && !entry.when()) {
          dt.classList.add("unavailable");
          dd.classList.add("unavailable");
        }
        list.append(dt, dd);
      }
      body.append(heading, list);
    }
  }

  function toggleOverlay() {
    if (!overlay) buildOverlay();
    if (overlay.open) {
      overlay.close();
      return;
    }
    fillOverlay();
    overlay.showModal();
  }

  // --- One listener for every key of the page.
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) return;
    const name = keyName(event);
    const t = event.target;
    if (overlay && overlay.open) {
      if (name === "?") {
        event.preventDefault();
        overlay.close();
      }
      return; // Esc closes it (the dialog's own)
    }
    const modified = event.ctrlKey || event.metaKey || event.altKey;
    if (!modified && typing(t)) {
      if (name === "Escape") {
        event.preventDefault();
        t.blur();
      }
      return;
    }
    if (name === "Space" && control(t)) return; // the focused box ticks, the button presses
    if (!modified && document.querySelector("dialog[open]")) return; // e.g. the zoom view
    if (name === "?") {
      event.preventDefault();
      toggleOverlay();
      return;
    }
    const entry = find(name);
    if (!entry) return;
    event.preventDefault();
    entry.run(name, event);
  });

  function refreshLines() {
    for (const line of document.querySelectorAll("[data-keys-line]")) fillLine(line);
  }

  window.pageKeys = {
    // entries: [{ keys: "j k" | ["j", "k"], label?, help, group?, run(name, event), when?() }]
    add(entries, group = "This page") {
      for (const entry of entries) scripted.push({ group, ...entry, keys: split(entry.keys) });
      refreshLines();
    },
    typing,
    toggleOverlay,
  };

  document.addEventListener("click", (event) => {
    if (event.target.closest("#keys-button")) toggleOverlay();
  });
  document.addEventListener("DOMContentLoaded", refreshLines);
})();
