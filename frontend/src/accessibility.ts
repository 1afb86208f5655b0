// What the page adds to ipywidgets' drawing, as widgets appear: ARIA for screen readers and
// the keyboard. (plotly's bundle is the charts' watcher's to load, once the page is quiet:
// amteach/ui/lazy.py.)

function improve(): void {
  // a widget of class am-live (amteach/ui/live.py) is a polite live region; ipywidgets cannot
  // set ARIA attributes, so its content box gets them here, once
  for (const box of document.querySelectorAll('.am-live > .widget-html-content:not([role])')) {
    box.setAttribute('role', 'status');
    box.setAttribute('aria-live', 'polite');
  }
  // a plotly chart is a figure named by its title; its data table follows it
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const title = plot.querySelector('.gtitle');
    const label =
      'Chart' +
      (title && title.textContent ? ': ' + title.textContent : '') +
      '. Its data is in the table that follows it.';
    if (plot.getAttribute('aria-label') !== label) {
      plot.setAttribute('role', 'figure');
      plot.setAttribute('aria-label', label);
    }
  }
  // an accordion's header is a button that Tab reaches and Enter or Space opens, and says
  // whether it is open
  for (const header of document.querySelectorAll<HTMLElement>('.jupyter-widget-Collapse-header')) {
    if (!header.hasAttribute('tabindex')) {
      header.setAttribute('tabindex', '0');
      header.setAttribute('role', 'button');
      header.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          header.click();
        }
      });
    }
    const open = String(
      header.parentElement?.classList.contains('jupyter-widget-Collapse-open') ?? false,
    );
    if (header.getAttribute('aria-expanded') !== open) header.setAttribute('aria-expanded', open);
  }
  // a box that scrolls sideways (a wide table on a phone) takes the keyboard
  for (const box of document.querySelectorAll('.am-scroll:not([tabindex])')) {
    box.setAttribute('tabindex', '0');
  }
  // a slider's handle is named by the slider's label ("Games", "Speed")
  for (const slider of document.querySelectorAll('.widget-slider')) {
    const name = slider.querySelector(':scope > .widget-label')?.textContent;
    const handle = slider.querySelector('[role=slider], .noUi-handle');
    if (name && handle && handle.getAttribute('aria-label') !== name) {
      handle.setAttribute('aria-label', name);
    }
  }
}

export function watchAccessibility(): void {
  new MutationObserver(improve).observe(document.documentElement, {
    childList: true,
    subtree: true,
    attributes: true,
    attributeFilter: ['class'],
  });
}
