// anywidget's npm package is an AMD module whose factory takes @jupyter-widgets/base; the build
// (build.mjs) turns its `define` call into a default export of that factory.
// @ts-expect-error: no types for the built file
import factory from 'anywidget';

export default factory as (widgetBase: unknown) => Record<string, unknown>;
