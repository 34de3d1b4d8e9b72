// Blind annotation and adjudication: `e`/`r` label, `j`/`k` and `x`/`Space` evidence, `w` whole
// context, `Ctrl+Enter` submit (and the adjudicator's keys, declared in the template); choices
// autosave on the server as a draft.
(function () {
  "use strict";

  const root = document.getElementById("review-page");
  if (!root) return;
  const form = document.getElementById("review-form");
  let current = null;  // the current evidence element (j/k, a click, or its focused box)

  const boxes = () => Array.from(document.querySelectorAll("input.ev"));
  const items = () => Array.from(document.querySelectorAll(".ev-item")).filter((el) => el.offsetParent !== null);

  // Element ids, each once: one element is one mark, whichever of its boxes was ticked.
  const marked = () => [...new Set(boxes().filter((b) => b.checked).map((b) => parseInt(b.value, 10)))];

  function refresh() {
    const list = document.getElementById("ev-list");
    list.textContent = "";
    const counted = new Set();
    for (const box of boxes()) {
      box.closest(".ev-item").classList.toggle("selected", box.checked);
      if (!box.checked || counted.has(box.value)) continue;
      counted.add(box.value);
      const li = document.createElement("li");
      li.textContent = box.getAttribute("aria-label").replace(/^Evidence: /, "");
      list.appendChild(li);
    }
    document.getElementById("ev-count").textContent = String(counted.size);
  }

  function collect() {
    const data = new FormData(form);
    return {
      label: data.get("label") || "",
      decision: data.get("decision") || "decided",
      confidence: data.get("confidence") || "",
      reason: data.get("reason") || "",
      notes: data.get("notes") || "",
      evidence: marked(),
    };
  }

  // A draft kept in this browser, put back (the label, the adjudicator's choices, the evidence).
  function apply(draft) {
    for (const name of ["label", "decision"]) {
      for (const radio of form.querySelectorAll(`input[name=${name}]`)) radio.checked = radio.value === draft[name];
    }
    for (const name of ["confidence", "reason", "notes"]) {
      const input = form.elements.namedItem(name);
      if (input && typeof draft[name] === "string") input.value = draft[name];
    }
    const chosen = new Set((draft.evidence || []).map(String));
    for (const box of boxes()) box.checked = chosen.has(box.value);
    refresh();
  }

  // Drafts and refusals (static/js/autosave.js): this browser first, then the server; a
  // refused save or submission says why and the choices stay.
  const drafts = window.workAutosave({
    root, form, collect, apply, state: document.getElementById("draft-state"), delay: 500,
  });

  function changed() {
    refresh();
    drafts.changed();
  }

  // Should an element still have two boxes, they move together.
  function sameElement(box) {
    for (const other of document.querySelectorAll(`input.ev[value="${box.value}"]`)) {
      if (other !== box) other.checked = box.checked;
    }
  }

  document.addEventListener("change", (event) => {
    if (!event.target.closest("#review-page")) return;
    if (event.target.matches("input.ev")) sameElement(event.target);
    changed();
  });
  document.addEventListener("input", (event) => {
    if (event.target.matches("textarea")) changed();
  });

  document.body.addEventListener("htmx:afterSwap", (event) => {
    window.dropRepeatedEvidence(event.detail.target);
    refresh();
  });

  for (const button of document.querySelectorAll(".take-side")) {
    button.addEventListener("click", () => {
      const chosen = new Set(button.dataset.evidence.split(",").filter(Boolean));
      for (const box of boxes()) box.checked = chosen.has(box.value);
      const label = form.querySelector(`input[name=label][value=${button.dataset.label}]`);
      if (label) label.checked = true;
      changed();
    });
  }

  function setCurrent(item) {
    if (current) current.classList.remove("current");
    current = item;
    if (item) item.classList.add("current");
  }

  function move(step) {
    const all = items();
    if (!all.length) return;
    const index = current ? all.indexOf(current) : -1;
    setCurrent(all[Math.max(0, Math.min(all.length - 1, index + step))]);
    current.focus();
    current.scrollIntoView({ block: "nearest" });
  }

  // Clicking an element, or focusing its box (Tab), makes it the current one.
  for (const type of ["click", "focusin"]) {
    document.addEventListener(type, (event) => {
      const item = event.target.closest && event.target.closest(".ev-item");
      if (item && item !== current) setCurrent(item);
    });
  }

  // The keys (static/js/keys.js). Ctrl+Enter, the label (`e`/`r`) and, on the adjudication page,
  // "take this" (`W`/`S`), confidence (`l`/`m`/`h`), reason (`1`–`5`), decision (`d`/`u`) and
  // notes (`o`) are data-key on their elements in the templates.
  window.pageKeys.add([
    { keys: "j k", help: "next/previous evidence", run: (key) => move(key === "j" ? 1 : -1) },
    {
      keys: "x Space",
      label: "x or Space",
      help: "mark/unmark the current element as evidence",
      run: () => {
        const box = current && current.querySelector("input.ev");
        if (box && !box.disabled) {
          box.checked = !box.checked;
          box.dispatchEvent(new Event("change", { bubbles: true }));
        }
      },
    },
  ]);

  refresh();
  drafts.restoreLocal();
})();
