/* MathJax's configuration, read by docs/javascripts/mathjax/tex-chtml.js (loaded after this file).

   The maths of the pages is pymdownx.arithmatex's generic output: \( ... \) inline, \[ ... \] displayed,
   inside elements of class "arithmatex"; MathJax typesets those and nothing else (no stray dollar sign or
   backslash in a code block is taken for maths).

   MathJax 3.2.2 is vendored, not loaded from a CDN (the site loads nothing from another host): tex-chtml.js,
   its CHTML fonts (output/chtml/fonts/woff-v2, found relative to the script) and its Apache-2.0 LICENSE,
   copied unchanged from the es5/ folder of PyPI's django-static-mathjax 3.2.2.1 (MathJax's own
   distribution). TeX extensions outside that bundle would be fetched from input/tex/extensions/, which is
   not vendored: the pages use only the base and AMS macros. */
window.MathJax = {
  tex: {
    inlineMath: [["\\(", "\\)"]],
    displayMath: [["\\[", "\\]"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: ".*|",
    processHtmlClass: "arithmatex",
  },
};

/* Material's document$ emits once the page has loaded, and again on each page instant navigation swaps in,
   should that feature be turned on. MathJax's startup typesets the page it loaded with; clearing its caches
   for that first page would drop the rules that draw the characters (the maths would take its space and
   show nothing), so only a later page is cleared and typeset here. */
let firstPage = true;
document$.subscribe(() => {
  if (firstPage) {
    firstPage = false;
    return;
  }
  MathJax.startup.promise.then(() => {
    MathJax.startup.output.clearCache();
    MathJax.typesetClear();
    MathJax.texReset();
    return MathJax.typesetPromise();
  });
});
