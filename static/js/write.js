// Claim writing: the writing page (claim-form.js, with the entailed claim's evidence), and `n`
// for the next task wherever a "next" form is shown.
(function () {
  "use strict";

  // `n` opens the next task wherever a "next" form is shown (workspace, pair page).
  const nextForm = document.getElementById("next-form");
  const root = document.getElementById("write-page");
  if (!root) {
    const stale = document.querySelector("[data-clear-drafts]");
    if (stale) {
      for (const id of stale.dataset.clearDrafts.split(",")) {
        if (id) localStorage.removeItem(`sciver-draft-${id}`);
      }
    }
    if (nextForm) {
      const button = nextForm.querySelector("button");
      window.pageKeys.add([
        {
          keys: "n",
          help: button ? button.textContent.replace(/\s+n$/, "").trim().toLowerCase() : "next",
          run: () => nextForm.requestSubmit(),
        },
      ]);
    }
    return;
  }

  window.claimForm(root, {
    fields: ["entailed", "refuted", "explanation", "perturbation_kind", "suggestion"],
    entailedEvidence: true,
    startEvidence: () =>
      Array.from(document.querySelectorAll("input.ev")).filter((b) => b.checked).map((b) => b.value),
  });
})();
