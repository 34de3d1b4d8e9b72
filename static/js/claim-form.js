// What the claim-writing pages share (a pair, and a new perturbation): evidence by click or
// keyboard with its summary, suggestions, zoom, the automatic warnings, and drafts that survive
// a reload or a lost connection (kept in this browser, then saved on the server).
window.claimForm = function (root, options) {
  "use strict";

  // `fields`: the text fields the draft keeps; `entailedEvidence`: whether the page marks the
  // entailed claim's evidence (the writing page) or only the refuted claim's (a new
  // perturbation, whose entailed claim's evidence is final: `startEvidence` gives it).
  const { fields, entailedEvidence, startEvidence } = options;
  const form = document.getElementById("writing");
  const editable = root.dataset.editable === "1";
  // The evidence rule: exactly this many tables/charts (the server holds the writer to it).
  const visualsNeeded = parseInt(root.dataset.visualsNeeded || "1", 10);
  let current = null;

  const field = (name) => form.elements.namedItem(name);
  const boxes = () => Array.from(document.querySelectorAll("input.ev"));
  // The refuted claim's own evidence, used when "uses different evidence" is ticked.
  const refBoxes = () => Array.from(document.querySelectorAll("input.ev-ref"));
  const split = document.getElementById("id_split_evidence");
  const items = () => Array.from(document.querySelectorAll(".ev-item")).filter((el) => el.offsetParent !== null);
  // Element ids, each once: one element is one mark, whichever of its boxes was ticked.
  const checked = (list) => [...new Set(list.filter((b) => b.checked).map((b) => parseInt(b.value, 10)))];

  function collect() {
    const draft = {};
    for (const name of fields) draft[name] = field(name).value;
    if (entailedEvidence) draft.evidence = checked(boxes());
    draft.split_evidence = split.checked;
    draft.refuted_evidence = checked(refBoxes());
    return draft;
  }

  function apply(draft) {
    for (const name of fields) if (typeof draft[name] === "string") field(name).value = draft[name];
    if (entailedEvidence) {
      const chosen = new Set((draft.evidence || []).map(String));
      for (const box of boxes()) box.checked = chosen.has(box.value);
    }
    split.checked = !!draft.split_evidence;
    const refChosen = new Set((draft.refuted_evidence || []).map(String));
    for (const box of refBoxes()) box.checked = refChosen.has(box.value);
    refresh();
  }

  // Words as the server counts them (annotation.writing.rules.word_count, Python's str.split()):
  // runs between Unicode whitespace, which in Python includes U+001C–U+001F and U+0085 but not
  // U+FEFF (JavaScript's \s is the other way round).
  const SPACE = /(?:[^\S\ufeff]|[\x1c-\x1f\x85])+/;
  function words(text) {
    return text.split(SPACE).filter(Boolean).length;
  }

  // Count a set of evidence boxes into a summary (`prefix`-visuals, -sampled, -paragraphs, -list).
  function summarise(list, prefix, selectedClass) {
    let visuals = 0, sampled = 0, paragraphs = 0;
    const counted = new Set();
    const ul = document.getElementById(`${prefix}-list`);
    ul.textContent = "";
    for (const box of list) {
      const item = box.closest(".ev-item");
      if (selectedClass) item.classList.toggle(selectedClass, box.checked);
      if (!box.checked || counted.has(box.value)) continue;
      counted.add(box.value);
      const kind = item.dataset.kind;
      if (kind === "table" || kind === "chart") visuals += 1;
      else paragraphs += 1;
      if (item.classList.contains("sampled")) sampled += 1;
      const li = document.createElement("li");
      li.textContent = box.getAttribute("aria-label").replace(/^[^:]*: /, "");
      ul.appendChild(li);
    }
    document.getElementById(`${prefix}-visuals`).textContent = String(visuals);
    document.getElementById(`${prefix}-sampled`).textContent = String(sampled);
    document.getElementById(`${prefix}-paragraphs`).textContent = String(paragraphs);
    const summary = document.getElementById(`${prefix}-summary`);
    const ok = visuals === visualsNeeded && sampled >= 1;
    summary.classList.toggle("ok", ok);
    summary.classList.toggle("short", !ok);
  }

  function refresh() {
    if (entailedEvidence) summarise(boxes(), "ev", "selected");
    document.getElementById("ref-summary").hidden = !split.checked;
    for (const label of document.querySelectorAll(".ev-ref-toggle")) label.hidden = !split.checked;
    summarise(refBoxes(), "ref", "");
    for (const name of ["entailed", "refuted"]) {
      const count = document.getElementById(`words-${name}`);
      if (count) count.textContent = String(words(field(name).value));
    }
  }

  // --- Drafts and refusals (static/js/autosave.js): this browser first (never lost), then the
  // server (survives other browsers); a refused save or submission says why, the text stays.
  const drafts = window.workAutosave({
    root,
    form,
    collect,
    apply: (draft) => {
      apply(draft);
      refreshWarnings();
    },
    state: document.getElementById("draft-state"),
    delay: 700,
  });

  function changed() {
    refresh();
    drafts.changed();
  }

  // --- Evidence by keyboard.
  function setCurrent(item, scroll) {
    if (current) current.classList.remove("current");
    current = item;
    if (!item) return;
    item.classList.add("current");
    if (scroll) item.scrollIntoView({ block: "nearest", behavior: "instant" });
  }

  // The current element takes the focus, so that Space and Tab go on from it.
  function focusCurrent() {
    if (current) current.focus({ preventScroll: true });
  }

  function move(step) {
    const list = items();
    if (!list.length) return;
    const index = current ? list.indexOf(current) : -1;
    setCurrent(list[Math.min(list.length - 1, Math.max(0, index + step))], true);
    focusCurrent();
  }

  function toggle(item, selector = "input.ev") {
    const box = item && item.querySelector(selector);
    if (!box || box.disabled) return;
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // x, Space and 1-3 mark the entailed claim's evidence where the page has it, else (with
  // "different evidence" ticked) the refuted claim's; Shift+x always the refuted claim's.
  function mark(item) {
    if (entailedEvidence) toggle(item);
    else if (split.checked) toggle(item, "input.ev-ref");
  }

  function markSampled(n) {
    const item = document.querySelector(`.ev-item.sampled[data-sampled="${n}"]`);
    setCurrent(item, true);
    focusCurrent();
    mark(item);
  }

  // --- Zoom.
  const dialog = document.getElementById("zoom");
  const zoomImg = document.getElementById("zoom-img");
  let scale = 1;
  function zoomTo(value) {
    scale = value;
    zoomImg.style.width = value === 0 ? "100%" : `${zoomImg.naturalWidth * value}px`;
  }
  function openZoom(button) {
    zoomImg.src = button.dataset.src;
    zoomImg.alt = button.dataset.label;
    document.getElementById("zoom-label").textContent = button.dataset.label;
    dialog.showModal();
    if (zoomImg.complete) zoomTo(Math.max(1, Math.min(2, 1400 / (zoomImg.naturalWidth || 1400))));
    else zoomImg.onload = () => zoomTo(Math.max(1, Math.min(2, 1400 / zoomImg.naturalWidth)));
  }
  dialog.addEventListener("click", (event) => {
    const step = event.target.closest("[data-zoom]");
    if (step) {
      const d = parseInt(step.dataset.zoom, 10);
      zoomTo(d === 0 ? 0 : Math.max(0.25, (scale || 1) * (d > 0 ? 1.25 : 0.8)));
    }
    if (event.target.id === "zoom-close") dialog.close();
  });

  // --- Suggestions.
  // Taken by click, the refuted claim's box gets the focus to edit it; taken by a key
  // (Alt+1…9), the taken suggestion does, so that the next key is a shortcut again (`p` explains
  // it, `r` edits it) and never lands in the claim.
  function take(button, byKey = false) {
    if (!editable) return;
    field("refuted").value = button.dataset.text;
    field("perturbation_kind").value = button.dataset.kind;
    field("suggestion").value = button.dataset.text;
    const refuted = field("refuted");
    if (byKey) {
      button.focus();
    } else {
      refuted.focus();
      refuted.setSelectionRange(refuted.value.length, refuted.value.length);
    }
    changed();
    refreshWarnings();
  }

  // The automatic warnings follow the text (htmx recomputes them on "input"; a suggestion
  // taken or a draft restored sets the text without one).
  function refreshWarnings() {
    const box = document.getElementById("warnings");
    if (!box || !editable) return;
    if (document.readyState === "loading") {  // htmx binds its triggers when the page is parsed
      document.addEventListener("DOMContentLoaded", refreshWarnings, { once: true });
    } else {
      box.dispatchEvent(new Event("refresh"));
    }
  }

  document.addEventListener("click", (event) => {
    const suggestion = event.target.closest(".take-suggestion");
    if (suggestion) take(suggestion);
    const zoom = event.target.closest("button.zoom");
    if (zoom) openZoom(zoom);
    const item = event.target.closest(".ev-item");
    if (item) setCurrent(item, false);
  });
  // Focusing an element's box (Tab) makes that element the current one.
  document.addEventListener("focusin", (event) => {
    const item = event.target.closest && event.target.closest(".ev-item");
    if (item && item !== current) setCurrent(item, false);
  });
  // Ticking "different evidence" starts the refuted claim's evidence from the entailed one's.
  function splitChanged() {
    if (split.checked && !refBoxes().some((b) => b.checked)) {
      const chosen = new Set(startEvidence().map(String));
      for (const box of refBoxes()) box.checked = chosen.has(box.value);
    }
    changed();
    refreshWarnings();
  }

  // Should an element still have two boxes of a kind, they move together.
  function sameElement(box) {
    const kind = box.classList.contains("ev") ? "input.ev" : "input.ev-ref";
    for (const other of document.querySelectorAll(`${kind}[value="${box.value}"]`)) {
      if (other !== box) other.checked = box.checked;
    }
  }

  document.addEventListener("change", (event) => {
    if (event.target === split) splitChanged();
    else if (event.target.matches("input.ev, input.ev-ref, select")) {
      if (event.target.matches("input.ev, input.ev-ref")) {
        sameElement(event.target);
        refreshWarnings();  // a claim naming a table or figure is checked against its evidence
      }
      changed();
    }
  });
  form.addEventListener("input", changed);
  // Hand back: the draft reaches the server first, then the task is released.
  const releaseForm = document.getElementById("release-form");
  if (releaseForm) {
    releaseForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (drafts.isSubmitting()) return;
      await drafts.save();
      drafts.stop();
      releaseForm.submit();
    });
  }
  // Evidence loaded with the whole context joins the page's evidence.
  document.body.addEventListener("htmx:afterSwap", (event) => {
    window.dropRepeatedEvidence(event.detail.target);
    refresh();
  });

  // The keys (static/js/keys.js). Ctrl+Enter, `e`/`r`/`p` (the text boxes), `g` (suggest) and
  // `w` (whole context) are data-key on their elements in the templates.
  const marks = entailedEvidence ? "evidence" : "the new claim's evidence";
  window.pageKeys.add([
    {
      keys: ["Alt+1", "Alt+2", "Alt+3", "Alt+4", "Alt+5", "Alt+6", "Alt+7", "Alt+8", "Alt+9"],
      label: "Alt+1…9",
      help: "take suggestion 1–9 (then r edits it, p explains it)",
      when: () => editable && document.querySelector(".take-suggestion") !== null,
      run: (key) => {
        const button = document.querySelectorAll(".take-suggestion")[parseInt(key.slice(4), 10) - 1];
        if (button) take(button, true);
      },
    },
    { keys: "j k", help: "next/previous evidence", run: (key) => move(key === "j" ? 1 : -1) },
    { keys: "x Space", label: "x or Space", help: `mark/unmark the current element as ${marks}`, run: () => mark(current) },
    {
      keys: "X",
      label: "Shift+X",
      help: "mark/unmark it as the refuted claim's own evidence",
      when: () => split.checked,
      run: () => toggle(current, "input.ev-ref"),
    },
    {
      keys: "d",
      help: entailedEvidence ? "the refuted claim uses different evidence" : "the new claim uses different evidence",
      when: () => !split.disabled,
      run: () => {
        split.checked = !split.checked;
        splitChanged();
      },
    },
    { keys: "1 2 3", label: "1 2 3", help: "mark/unmark a sampled table/chart", run: (key) => markSampled(parseInt(key, 10)) },
    {
      keys: "z",
      help: "zoom the current table/chart",
      run: () => {
        const button = current && current.querySelector("button.zoom");
        if (button) openZoom(button);
      },
    },
  ]);

  refresh();
  drafts.restoreLocal();
};
