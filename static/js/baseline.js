// The human-baseline answer page: `j`/`k` go through the context (the label, the explanation
// and the answer are data-key in the template; static/js/keys.js).
(function () {
  "use strict";

  if (!document.getElementById("baseline-page")) return;
  let current = null;

  function move(step) {
    const pieces = Array.from(document.querySelectorAll("#context .piece"));
    if (!pieces.length) return;
    const index = current ? pieces.indexOf(current) : -1;
    if (current) current.classList.remove("current");
    current = pieces[Math.min(pieces.length - 1, Math.max(0, index + step))];
    current.classList.add("current");
    current.scrollIntoView({ block: "nearest" });
    current.focus({ preventScroll: true });
  }

  window.pageKeys.add([
    { keys: "j k", help: "next/previous piece of context", run: (key) => move(key === "j" ? 1 : -1) },
  ]);
})();
