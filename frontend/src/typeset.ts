// MathJax 3 set up as JupyterLab's typesetter (@jupyterlab/mathjax-extension) sets it up: TeX
// with all its packages and JupyterLab's delimiters in, CommonHTML out with the fonts of
// JupyterLab's style sheet (src/rich.css), the safe and assistive-MathML handlers. Its own
// MathJaxTypesetter cannot be used here: it imports MathJax's CommonJS modules with import(),
// and in a code-split build esbuild hands such an import the module's namespace rather than
// its exports. Imported by src/rich.ts only when a page has math to typeset.
import { browserAdaptor } from 'mathjax-full/js/adaptors/browserAdaptor';
import { AssistiveMmlHandler } from 'mathjax-full/js/a11y/assistive-mml';
import { HTMLHandler } from 'mathjax-full/js/handlers/html/HTMLHandler';
import { TeX } from 'mathjax-full/js/input/tex';
import { AllPackages } from 'mathjax-full/js/input/tex/AllPackages';
import { mathjax } from 'mathjax-full/js/mathjax';
import { CHTML } from 'mathjax-full/js/output/chtml';
import { TeXFont } from 'mathjax-full/js/output/chtml/fonts/tex';
import { SafeHandler } from 'mathjax-full/js/ui/safe/SafeHandler';

mathjax.handlers.register(AssistiveMmlHandler(SafeHandler(new HTMLHandler(browserAdaptor()))));

// the fonts come from the style sheet, not from MathJax's own font loading
class StyleSheetFont extends TeXFont {
  static defaultFonts = {} as typeof TeXFont.defaultFonts;
}

const page = mathjax.document(window.document, {
  InputJax: new TeX({
    packages: AllPackages,
    inlineMath: [
      ['$', '$'],
      ['\\(', '\\)'],
    ],
    displayMath: [
      ['$$', '$$'],
      ['\\[', '\\]'],
    ],
    processEscapes: true,
    processEnvironments: true,
  }),
  OutputJax: new CHTML({ font: new StyleSheetFont() }),
});

/** Typeset the math in `element`; a link MathJax makes opens in a new tab, without an opener. */
export function typeset(element: HTMLElement): void {
  page.options.elements = [element];
  page.clear().render();
  delete page.options.elements;
  for (const link of element.querySelectorAll<HTMLAnchorElement>('.MathJax a')) {
    link.target = '_blank';
    link.rel = 'noopener';
  }
}
