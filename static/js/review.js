// Blind annotation and adjudication: `e`/`r` label, `j`/`k` and `x`/`Space` evidence, `w` whole
// context, `Ctrl+Enter` submit; choices autosave on the server as a draft.
(function () {
  "use strict";

  const root = document.getElementById("review-page");
  if (!root) return;
  const form = document.getElementById("review-form");
  const editable = root.dataset.editable === "1";
  const state = document.getElementById("draft-state");
  let current = null;  // the current evidence element (j/k, a click, or its focused box)
  let timer = null;
  let submitting = false;

  const boxes = () => Array.from(document.querySelectorAll("input.ev"));
  const items = () => Array.from(document.querySelectorAll(".ev-item")).filter((el) => el.offsetParent !== null);
  const typing = (t) => t.matches("textarea, select, input:not([type=checkbox]):not([type=radio])");
  const control = (t) => t.matches("input, button, select, textarea, summary, a[href]");

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

  async function save() {
    try {
      const response = await fetch(root.dataset.draftUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": form.elements.namedItem("csrfmiddlewaretoken").value },
        body: JSON.stringify({ version: parseInt(root.dataset.version, 10), draft: collect() }),
        credentials: "same-origin",
      });
      const data = await response.json().catch(() => ({}));
      state.textContent = response.ok ? `Saved ${data.saved_at}.` : (data.error || "Not saved.");
    } catch (error) {
      state.textContent = "Offline: not saved yet.";
    }
  }

  function changed() {
    refresh();
    if (!editable || submitting) return;
    state.textContent = "Unsaved changes…";
    clearTimeout(timer);
    timer = setTimeout(save, 500);
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

  form.addEventListener("submit", () => {
    submitting = true;
    clearTimeout(timer);
  });

  function setLabel(value) {
    const radio = form.querySelector(`input[name=label][value=${value}]`);
    if (radio && !radio.disabled) {
      radio.checked = true;
      changed();
    }
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

  document.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      if (editable) form.requestSubmit();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    const key = event.key;
    if (key === "e" || key === "r") {
      event.preventDefault();
      setLabel(key === "e" ? "entailed" : "refuted");
    } else if (key === "j" || key === "k") {
      event.preventDefault();
      move(key === "j" ? 1 : -1);
    } else if (key === "x" || (key === " " && !control(event.target))) {
      // Space on a focused box or button is theirs (the box ticks itself).
      const box = current && current.querySelector("input.ev");
      if (box && !box.disabled) {
        event.preventDefault();
        box.checked = !box.checked;
        box.dispatchEvent(new Event("change", { bubbles: true }));
      }
    } else if (key === "w") {
      event.preventDefault();
      const details = document.getElementById("whole-context");
      details.open = !details.open;
    }
  });

  refresh();
})();
