// Every work page's autosave and the one way a refusal is said (curation, claim writing, a new
// perturbation, blind annotation, adjudication, validation, the human baseline). What the page
// holds is kept in this browser at once and saved on the server a moment later; the form is
// submitted by fetch, so that whatever refuses it — a page older than the item (stale), the
// item submitted in another tab, handed on, withdrawn, a session that ended, a page older than
// the last sign-in, no connection, a broken rule — is said at once in one panel (#refusal,
// templates/annotation/_refusal.html, fixed at the bottom of the window) while the text stays on
// the page and in this browser. Without this script the forms post as plain forms and the server
// shows the same panel on the page it renders again.
window.workAutosave = function (options) {
  "use strict";

  const {
    root, // data-item, data-version, data-draft-url, data-editable, data-server-draft-at
    form, // the submission form
    collect = null, // () => the draft; without it the page keeps nothing (curation)
    apply = null, // (draft) => put a draft kept in this browser back on the page
    state = null, // the line that says where the draft is
    delay = 700,
    versionField = "version", // the form's field the item's version travels in
    guardUnload = false, // ask before leaving while the server lacks a change
    onRefused = null, // (answer) => the page's own part of a refusal
  } = options;
  const editable = root.dataset.editable !== "0";
  const draftUrl = root.dataset.draftUrl || "";
  const storageKey = root.dataset.item ? `sciver-draft-${root.dataset.item}` : "";
  // A refusal after which saving again cannot succeed: autosave stops, the text stays.
  const TERMINAL = new Set(["submitted", "handed_on", "released", "lease_expired", "cancelled",
    "not_holder", "forbidden", "waiting", "not_found", "stale"]);
  const KEPT = "Your text is kept on this page and in this browser.";
  let timer = null;
  let retry = null;
  let dirty = false; // a change the server has not got
  let submitting = false;
  let blocked = ""; // the terminal reason, while autosave is stopped
  let refusedFrom = ""; // "save" or "submit": what the panel shown answers

  const csrf = () => {
    const input = form.elements.namedItem("csrfmiddlewaretoken");
    return input ? input.value : "";
  };

  function say(text, trouble) {
    if (!state) return;
    state.textContent = text;
    state.classList.toggle("offline", !!trouble);
  }

  // --- This browser's copy: first, always.
  // Beside the draft, the drafts this browser sent the server (their text, newest last): a draft
  // the server holds that this browser sent before its newest typing is older than that typing,
  // whenever the server happened to record it (a save sent just before the connection went
  // can be recorded after the text typed offline).
  const SENT_KEPT = 20;

  function readLocal() {
    if (!storageKey) return null;
    try {
      return JSON.parse(localStorage.getItem(storageKey) || "null");
    } catch (error) {
      return null;
    }
  }

  function writeLocal(saved) {
    try {
      localStorage.setItem(storageKey, JSON.stringify(saved));
    } catch (error) {
      // Storage full or refused: the server's draft is the copy.
    }
  }

  function keepLocally() {
    if (!collect || !storageKey) return;
    const saved = readLocal();
    writeLocal({ at: Date.now(), draft: collect(), sent: (saved && saved.sent) || [] });
  }

  function keepSent(text) {
    if (!collect || !storageKey) return;
    const saved = readLocal() || { at: Date.now(), draft: collect() };
    const sent = (saved.sent || []).filter((one) => one !== text);
    sent.push(text);
    saved.sent = sent.slice(-SENT_KEPT);
    writeLocal(saved);
  }

  function forgetLocally() {
    if (storageKey) localStorage.removeItem(storageKey);
  }

  function restoreLocal() {
    if (!collect || !apply || !storageKey || !editable) return;
    const saved = readLocal();
    if (!saved || !saved.draft) return;
    const shown = JSON.stringify(collect());
    if (JSON.stringify(saved.draft) === shown) return;
    // The server's draft wins when it is newer than this browser's typing, unless it is one
    // this browser sent itself (then this browser's newest typing is newer still).
    const serverAt = parseInt(root.dataset.serverDraftAt || "0", 10) * 1000;
    const ours = (saved.sent || []).includes(shown);
    if (saved.at <= serverAt && !ours) return;
    apply(saved.draft);
    dirty = true;
    say("Restored text typed in this browser that had not reached the server; saving it now.", true);
    save();
  }

  // --- The panel.
  function panel() {
    return document.getElementById("refusal");
  }

  function hidePanel() {
    const shown = panel();
    if (shown) shown.remove();
    refusedFrom = "";
  }

  function wire(element) {
    const hide = element.querySelector(".refusal-hide");
    if (hide) hide.hidden = false;
  }

  // A panel from the server's HTML, or made here from a message and its ways on.
  function showPanel(answer, from) {
    let element = null;
    if (answer.html) {
      const holder = document.createElement("div");
      holder.innerHTML = answer.html.trim();
      element = holder.firstElementChild;
    }
    if (!element) {
      element = document.createElement("div");
      element.className = "refusal";
      element.id = "refusal";
      element.setAttribute("role", "alert");
      element.tabIndex = -1;
      const hide = document.createElement("button");
      hide.type = "button";
      hide.className = "refusal-hide linkish";
      hide.setAttribute("aria-label", "Hide this message");
      hide.textContent = "×";
      const message = document.createElement("p");
      message.className = "refusal-message";
      message.id = "refusal-message";
      message.textContent = answer.message;
      element.append(hide, message);
      if (answer.links && answer.links.length) {
        const actions = document.createElement("p");
        actions.className = "refusal-actions";
        for (const [label, href, extra] of answer.links) {
          const ways = href ? document.createElement("a") : document.createElement("button");
          if (href) ways.href = href;
          else ways.type = "button";
          if (extra) Object.assign(ways, extra);
          ways.textContent = label;
          actions.append(ways, " ");
        }
        element.append(actions);
      }
    }
    element.dataset.reason = answer.reason;
    const old = panel();
    if (old) old.replaceWith(element);
    else form.prepend(element);
    wire(element);
    // Heading a form column (refusal.css) it is in the flow: brought into view. Fixed, it is.
    if (getComputedStyle(element).position !== "fixed") element.scrollIntoView({ block: "nearest" });
    refusedFrom = from;
  }

  // A broken rule's message beside its field, as the page the server renders has it: in the
  // page's own `#err-<field>` if it has one, else after `[data-error-for~=<field>]` or the
  // field itself. Messages of fields no longer refused go.
  function placeErrors(errors) {
    const wanted = errors || {};
    for (const old of form.ownerDocument.querySelectorAll("p.error[id^='err-']")) {
      if (old.dataset.placed) old.remove();
      else old.hidden = true;
    }
    for (const [name, text] of Object.entries(wanted)) {
      if (!name) continue;
      const id = `err-${name.replace(/_/g, "-")}`;
      let element = document.getElementById(id);
      if (!element) {
        let anchor = document.querySelector(`[data-error-for~="${name}"]`);
        if (!anchor) {
          const control = form.elements.namedItem(name);
          anchor = control instanceof RadioNodeList ? control[control.length - 1] : control;
          if (anchor) anchor = anchor.closest("fieldset") || anchor;
        }
        if (!anchor) continue;
        element = document.createElement("p");
        element.className = "error";
        element.id = id;
        element.dataset.placed = "1";
        anchor.after(element);
      }
      element.textContent = text;
      element.hidden = false;
    }
  }

  // Everything the server or the network answers that is not "saved"/"recorded".
  function refused(answer, status, from) {
    const data = answer || {};
    let reason = data.reason || "";
    let message = data.message || data.error || "";
    const links = [];
    if (status === 401 || data.signed_out) {
      reason = "signed_out";
      message = `${message || "You are signed out."} What you typed since is kept in this browser: sign in again (the link opens a new tab), then reload this page.`;
      if (data.login_url) links.push(["Sign in again", data.login_url, { target: "_blank", rel: "noopener" }]);
      links.push(["Reload this page", "", { className: "refusal-refresh secondary" }]);
    } else if (data.csrf) {
      reason = "page_out_of_date";
      message = `${message} What you typed is kept in this browser and comes back when the page reloads.`;
      links.push(["Reload this page", "", { className: "refusal-refresh" }]);
    } else if (status === 404) {
      reason = "not_found";
      message = `This item is not yours to change (or it no longer exists). ${KEPT}`;
    } else if (!reason) {
      reason = "server";
      message = `The server could not answer (HTTP ${status}): nothing may have been recorded. ${KEPT} ${from === "submit" ? "Submit again in a moment." : "It is saved again with your next change."}`;
    }
    const shown = { ...data, reason, message, links, html: reason === "signed_out" || reason === "page_out_of_date" ? "" : data.html };
    showPanel(shown, from);
    if (from === "submit") placeErrors(data.errors);
    say(`${from === "submit" ? "Not submitted" : "Not saved"}: ${message}`, true);
    if (TERMINAL.has(reason)) blocked = reason;
    if (onRefused) onRefused(shown);
    if (from === "submit") {
      const element = panel();
      if (element) element.focus({ preventScroll: true });
    }
  }

  function offline(from) {
    const message = from === "submit"
      ? `Offline: nothing was submitted. ${KEPT} Submit again when the connection returns.`
      : "Offline: not saved yet. Your text is kept in this browser and saved when the connection returns.";
    showPanel({ reason: "offline", message }, from);
    say(message, true);
    if (onRefused) onRefused({ reason: "offline", message });
  }

  function recovered() {
    const shown = panel();
    if (shown && ["offline", "signed_out", "page_out_of_date", "server", "invalid"].includes(shown.dataset.reason) && refusedFrom === "save") {
      hidePanel();
    }
  }

  // --- The server's copy. One save at a time from this page: a save asked for while one is on
  // its way goes after it (with the text as it is then), and a submission waits for it, so the
  // server never records this page's drafts out of order or a draft after the submission.
  let saving = null; // the save on its way
  let again = false; // a save asked for meanwhile

  function save() {
    if (saving) {
      again = true;
      return saving;
    }
    saving = sendDraft().finally(() => {
      saving = null;
      if (again) {
        again = false;
        if (!submitting) save();
      }
    });
    return saving;
  }

  async function sendDraft() {
    clearTimeout(retry);
    if (!collect || !draftUrl || !editable || blocked) return;
    const draft = collect();
    keepSent(JSON.stringify(draft));
    const body = JSON.stringify({ version: parseInt(root.dataset.version, 10), draft });
    let response;
    try {
      response = await fetch(draftUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf() },
        body,
        credentials: "same-origin",
      });
    } catch (error) {
      offline("save");
      retry = setTimeout(save, 5000);
      return;
    }
    const data = await response.json().catch(() => null);
    if (response.ok && data) {
      if (!timer && !again) dirty = false; // nothing changed while the draft was on its way
      root.dataset.serverDraftAt = String(Math.floor(Date.now() / 1000));
      say(`Draft saved ${data.saved_at}.`, false);
      recovered();
    } else {
      refused(data, response.status, "save");
    }
  }

  function changed() {
    if (!editable || submitting) return;
    keepLocally();
    if (!collect) {
      dirty = true;
      return;
    }
    dirty = true;
    if (blocked) {
      say(`Not saved: ${(panel() && panel().querySelector(".refusal-message").textContent) || "see the message."}`, true);
      return;
    }
    say("Unsaved changes…", false);
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      save();
    }, delay);
  }

  // --- The submission.
  function busy(on) {
    for (const button of form.querySelectorAll("button[type=submit], button:not([type])")) {
      if (on) button.setAttribute("aria-busy", "true");
      else button.removeAttribute("aria-busy");
    }
  }

  async function submit(event) {
    event.preventDefault();
    if (submitting) return; // a double press: the first submission is on its way
    submitting = true;
    clearTimeout(timer);
    clearTimeout(retry);
    keepLocally();
    busy(true);
    again = false;
    if (saving) await saving; // its answer is said; the submission goes after it
    let body;
    try {
      body = new FormData(form, event.submitter || null);
    } catch (error) {
      body = new FormData(form);
    }
    let response;
    try {
      response = await fetch(form.action, {
        method: "POST",
        headers: { Accept: "application/json", "X-Requested-With": "fetch" },
        body,
        credentials: "same-origin",
      });
    } catch (error) {
      submitting = false;
      busy(false);
      offline("submit");
      return;
    }
    const data = await response.json().catch(() => null);
    if (response.ok && data && data.redirect) {
      forgetLocally();
      dirty = false;
      window.location.assign(data.redirect);
      return;
    }
    submitting = false;
    busy(false);
    refused(data, response.status, "submit");
  }

  // --- The panel's ways on.
  document.addEventListener("click", (event) => {
    const element = panel();
    if (!element || !element.contains(event.target)) return;
    if (event.target.closest(".refusal-hide")) {
      hidePanel();
      return;
    }
    const keep = event.target.closest(".refusal-keep");
    if (keep) {
      // This page's text wins: it goes on as the item's (or the context's) newest version.
      event.preventDefault();
      const version = keep.dataset.version;
      root.dataset.version = version;
      const input = form.elements.namedItem(versionField);
      if (input) input.value = version;
      const from = refusedFrom;
      blocked = "";
      hidePanel();
      if (from === "submit" || !collect || !draftUrl) form.requestSubmit();
      else save();
      return;
    }
    if (event.target.closest(".refusal-take-saved")) {
      // What was saved since wins: the page shows it again, and this browser's copy goes.
      forgetLocally();
      dirty = false;
      window.location.reload();
      return;
    }
    if (event.target.closest(".refusal-refresh")) {
      keepLocally(); // the reload puts it back
      dirty = false;
      window.location.reload();
    }
  });

  // The page's fragments (warnings, suggestions, the whole context) refused the same way: by
  // the autosave's answer where the page has one (it says more: what won), else by theirs.
  document.body.addEventListener("htmx:responseError", (event) => {
    if (panel()) return;
    if (collect && draftUrl && editable && !blocked) {
      clearTimeout(timer);
      timer = null;
      save();
      return;
    }
    const xhr = event.detail.xhr;
    let data = null;
    try {
      data = JSON.parse(xhr.responseText);
    } catch (error) {
      data = null;
    }
    refused(data, xhr.status, "save");
  });
  document.body.addEventListener("htmx:sendError", () => {
    if (!panel()) offline("save");
    if (dirty && !blocked) retry = setTimeout(save, 5000);
  });

  if (editable) form.addEventListener("submit", submit);
  window.addEventListener("online", () => {
    if (dirty && !blocked) save();
    else recovered();
  });
  // Back from signing in (another tab): try again, which says the page must be reloaded.
  window.addEventListener("focus", () => {
    const element = panel();
    if (element && element.dataset.reason === "signed_out" && dirty) save();
  });
  window.addEventListener("beforeunload", (event) => {
    if (guardUnload && dirty && !submitting) event.preventDefault();
  });
  const server = panel();
  if (server) wire(server);

  return {
    changed,
    save,
    keepLocally,
    restoreLocal,
    isSubmitting: () => submitting,
    stop: () => {
      // e.g. handing the item back: the page leaves, nothing more is saved
      submitting = true;
      clearTimeout(timer);
      clearTimeout(retry);
    },
  };
};

// A form with no page script of its own to call it (the human baseline's answer) asks for the
// refusals by `data-work-submit`: its submission goes by fetch and is refused in the panel.
document.addEventListener("DOMContentLoaded", () => {
  "use strict";
  for (const form of document.querySelectorAll("form[data-work-submit]")) {
    window.workAutosave({ root: form, form });
  }
});
