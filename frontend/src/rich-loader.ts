// The first time the page needs more than the app's widgets (an Output widget, a cell output
// that is not a widget, math to typeset), it fetches src/rich.ts: its own script and style
// sheet beside this one (build.mjs), loaded once.
import type { IRenderMime } from '@jupyterlab/rendermime';

type Rich = typeof import('./rich');
let rich: Promise<Rich> | undefined;

export function loadRich(): Promise<Rich> {
  if (!rich) {
    const style = document.createElement('link');
    style.rel = 'stylesheet';
    style.href = new URL('amteach-lean-rich.css', import.meta.url).href;
    document.head.append(style);
    rich = import('./rich');
  }
  return rich;
}

// MathJax's delimiters (JupyterLab's typesetter: $...$, $$...$$, \(...\), \[...\] and
// \begin{...} environments); text without any has nothing to typeset
export const MATH = /\$|\\\(|\\\[|\\begin\{/;

/** The typesetter ipywidgets' views ask for (descriptions, HTMLMath): MathJax, fetched only
 * when an element has math in it, so that labels without math cost nothing. It lives in the
 * lazily loaded part with the rest of it (src/rich.ts, src/typeset.ts). */
export const lazyTypesetter: IRenderMime.ILatexTypesetter = {
  typeset(element: HTMLElement): void {
    if (!MATH.test(element.textContent ?? '')) return;
    void loadRich().then((module) => module.typesetter.typeset(element));
  },
};
