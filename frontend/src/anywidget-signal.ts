// anywidget (0.9 to 0.11) gives each widget's model 2 s of wall-clock time, from the moment the
// model is made, to load its module and run its initialize (`AbortSignal.timeout(2000)` in its
// runtime); after that the model is failed for good. Our widgets need milliseconds of CPU, but
// a busy laptop or phone can leave the page without the processor for longer than 2 s while it
// draws. build.mjs runs anywidget's module with this object as its `AbortSignal`, so that one
// deadline is 60 s for anywidget alone; the page's global AbortSignal is left as it is.
export const anywidgetAbortSignal = {
  any: (signals: AbortSignal[]): AbortSignal => AbortSignal.any(signals),
  timeout: (ms: number): AbortSignal => AbortSignal.timeout(ms === 2000 ? 60_000 : ms),
};
