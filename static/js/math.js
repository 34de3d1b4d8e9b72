// Math in the paper's paragraphs and captions, in every element marked `data-math` (also in
// context that htmx loads later): `$…$` (the parser keeps LaTeXML's alttext so) and `\(…\)`
// rendered by the vendored KaTeX; what KaTeX cannot parse stays as written. A click on a
// formula shows its LaTeX source, another click the rendering; `$` does it for every formula of
// the page. Claims are never marked: they are shown exactly as typed.
//
// The Content-Security-Policy (style-src 'self', config/settings.py) needs no change for this:
// katex.render builds DOM nodes and sets their sizes through the CSSOM (`element.style`), which
// the policy does not govern; it refuses only style attributes in markup and
// setAttribute("style"). So this never uses katex.renderToString with innerHTML, and KaTeX's
// error rendering (a style attribute) is off: throwOnError, and auto-render keeps the source.
(function () {
  "use strict";

  const DELIMITERS = [
    { left: "$", right: "$", display: false },
    { left: "\\(", right: "\\)", display: false },
  ];
  let showingSource = false; // `$` shows every formula's source

  // A rendered formula becomes a toggle between the rendering and its source.
  function wrap(rendered) {
    const annotation = rendered.querySelector('annotation[encoding="application/x-tex"]');
    const box = document.createElement("span");
    box.className = "math";
    box.title = "LaTeX: click to show the source ($ for every formula)";
    rendered.replaceWith(box);
    const shown = document.createElement("span");
    shown.className = "math-rendered";
    shown.append(rendered);
    const source = document.createElement("code");
    source.className = "math-source";
    source.textContent = `$${annotation ? annotation.textContent : ""}$`;
    box.append(shown, source);
    box.classList.toggle("show-source", showingSource);
  }

  function render(root) {
    if (!window.renderMathInElement || !(root instanceof Element)) return;
    const marked = root.matches("[data-math]") ? [root] : [];
    marked.push(...root.querySelectorAll("[data-math]"));
    for (const el of marked) {
      if (el.dataset.mathRendered) continue;
      el.dataset.mathRendered = "1";
      window.renderMathInElement(el, {
        delimiters: DELIMITERS,
        throwOnError: true,
        errorCallback: () => {}, // unparsable: left as written
        ignoredClasses: ["math"],
      });
      for (const rendered of el.querySelectorAll(".katex")) {
        if (!rendered.closest(".math")) wrap(rendered);
      }
    }
  }

  document.addEventListener("click", (event) => {
    const box = event.target.closest && event.target.closest(".math");
    if (box) box.classList.toggle("show-source");
  });
  document.body.addEventListener("htmx:load", (event) => render(event.detail.elt));

  if (window.pageKeys) {
    window.pageKeys.add(
      [
        {
          keys: "$",
          help: "show the LaTeX source of every formula (again: render them)",
          when: () => !!document.querySelector(".math"),
          run: () => {
            showingSource = !showingSource;
            for (const box of document.querySelectorAll(".math")) {
              box.classList.toggle("show-source", showingSource);
            }
          },
        },
      ],
      "Math"
    );
  }
  render(document.body);
})();
