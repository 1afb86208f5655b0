// anywidget's npm package is an AMD module whose factory takes @jupyter-widgets/base; build.mjs
// runs it with a `define` of its own that keeps the factory, exported here.
// @ts-expect-error: no types for the built file
import factory from 'anywidget';

export default factory as (widgetBase: unknown) => Record<string, unknown>;
