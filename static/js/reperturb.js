// A new perturbation: take a suggestion, keep the draft (this browser first, then the server),
// refresh the automatic warnings, Ctrl+Enter submits.
(function () {
  "use strict";

  const root = document.getElementById("reperturb-page");
  if (!root) return;
  const form = document.getElementById("writing");
  const editable = root.dataset.editable === "1";
  const storageKey = `sciver-draft-${root.dataset.item}`;
  const state = document.getElementById("draft-state");
  const fields = ["refuted", "explanation", "perturbation_kind", "suggestion"];
  const field = (name) => form.elements.namedItem(name);
  let timer = null;
  let submitting = false;

  function collect() {
    const draft = {};
    for (const name of fields) draft[name] = field(name).value;
    return draft;
  }

  function refreshWarnings() {
    const box = document.getElementById("warnings");
    if (!box || !editable) return;
    if (document.readyState === "loading") {  // htmx binds its triggers when the page is parsed
      document.addEventListener("DOMContentLoaded", refreshWarnings, { once: true });
    } else {
      box.dispatchEvent(new Event("refresh"));
    }
  }

  async function saveToServer() {
    const body = JSON.stringify({ version: parseInt(root.dataset.version, 10), draft: collect() });
    try {
      const response = await fetch(root.dataset.draftUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-CSRFToken": field("csrfmiddlewaretoken").value },
        body,
        credentials: "same-origin",
      });
      const data = await response.json().catch(() => ({}));
      state.textContent = response.ok
        ? `Draft saved ${data.saved_at}.`
        : `${data.error || "The draft was not saved."} Your text is kept in this browser.`;
      state.classList.toggle("offline", !response.ok);
      if (response.ok) root.dataset.serverDraftAt = String(Math.floor(Date.now() / 1000));
    } catch (error) {
      state.textContent = "Offline: your text is kept in this browser.";
      state.classList.add("offline");
    }
  }

  function changed() {
    if (!editable || submitting) return;
    localStorage.setItem(storageKey, JSON.stringify({ at: Date.now(), draft: collect() }));
    state.textContent = "Unsaved changes…";
    clearTimeout(timer);
    timer = setTimeout(saveToServer, 700);
  }

  function take(button) {
    if (!editable) return;
    field("refuted").value = button.dataset.text;
    field("perturbation_kind").value = button.dataset.kind;
    field("suggestion").value = button.dataset.text;
    field("refuted").focus();
    changed();
    refreshWarnings();
  }

  document.addEventListener("click", (event) => {
    const suggestion = event.target.closest(".take-suggestion");
    if (suggestion) take(suggestion);
  });
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("submit", (event) => {
    if (submitting) {
      event.preventDefault();
      return;
    }
    submitting = true;
    clearTimeout(timer);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      if (editable) form.requestSubmit();
    } else if (event.altKey && /^[1-9]$/.test(event.key)) {
      const button = document.querySelectorAll(".take-suggestion")[parseInt(event.key, 10) - 1];
      if (button) {
        event.preventDefault();
        take(button);
      }
    }
  });

  // Text typed here that never reached the server (a lost connection) comes back.
  if (editable) {
    try {
      const saved = JSON.parse(localStorage.getItem(storageKey) || "null");
      const serverAt = parseInt(root.dataset.serverDraftAt || "0", 10) * 1000;
      if (saved && saved.draft && saved.at > serverAt) {
        for (const name of fields) if (typeof saved.draft[name] === "string") field(name).value = saved.draft[name];
        refreshWarnings();
        saveToServer();
      }
    } catch (error) {
      localStorage.removeItem(storageKey);
    }
  }
})();
