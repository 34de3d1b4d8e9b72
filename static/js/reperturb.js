// A new perturbation: the claim-writing machinery (claim-form.js) without the entailed claim's
// evidence, which is final: the new claim cites it unless "different evidence" is ticked.
(function () {
  "use strict";

  const root = document.getElementById("reperturb-page");
  if (!root) return;
  window.claimForm(root, {
    fields: ["refuted", "explanation", "perturbation_kind", "suggestion"],
    entailedEvidence: false,
    startEvidence: () => root.dataset.entailedEvidence.split(",").filter(Boolean),
  });
})();
