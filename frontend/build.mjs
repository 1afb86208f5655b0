// Builds the lean front end into the amteach-lean template's static folder (committed: the
// wheel carries it, and a machine installing amteach has no node). `npm ci && npm run build`
// gives the same bytes again (tests/test_lean_frontend.py). The folder holds:
// - amteach-lean.js and .css: what every page loads (the widget manager, ipywidgets' controls,
//   anywidget);
// - chunk-*.js, amteach-lean-rich.css and MathJax's fonts: JupyterLab's output area, renderers
//   and MathJax (src/rich.ts, src/rich.css), fetched only by a page that shows an Output
//   widget, a non-widget output or math;
// - amteach-lean.versions.json: the versions of the packages bundled, which
//   tests/test_frontend_versions.py ties to the Python packages installed.
import { readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import * as esbuild from 'esbuild';

const require = createRequire(import.meta.url);
const here = path.dirname(new URL(import.meta.url).pathname);
const pkg = JSON.parse(await readFile(path.join(here, 'package.json'), 'utf8'));

// `node build.mjs [folder]`: another folder for a test that compares a rebuild with the
// committed files
const outdir = path.resolve(here, process.argv[2] ?? '../amteach/voila_template_lean/static');

// a file of an installed package (read directly: some packages' exports hide package.json)
const packageFile = (name, file) => readFileSync(path.join(here, 'node_modules', name, file), 'utf8');
const installed = (name) => JSON.parse(packageFile(name, 'package.json')).version;

const adapt = {
  name: 'adapt',
  setup(build) {
    // anywidget's npm package is an AMD module (`define(["@jupyter-widgets/base"], factory)`):
    // it runs inside an ES module that gives it a `define` which keeps the factory, and an
    // `AbortSignal` of its own (src/anywidget-signal.ts). Nothing in its text is changed; the
    // two names are checked against the version this was written for, so a new anywidget is
    // looked at before it is bundled.
    build.onLoad({ filter: /anywidget[\\/]dist[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const version = installed('anywidget');
      if (version !== pkg.dependencies.anywidget) {
        throw new Error(`anywidget ${version} is not the pinned ${pkg.dependencies.anywidget}`);
      }
      const uses = new Set(source.match(/AbortSignal\.\w+/g));
      const known = new Set(['AbortSignal.any', 'AbortSignal.timeout']);
      if ([...uses].some((use) => !known.has(use)) || !/^define\(\[/m.test(source)) {
        throw new Error('anywidget: its AMD definition or its AbortSignal calls have changed');
      }
      const signal = JSON.stringify(path.join(here, 'src', 'anywidget-signal.ts'));
      return {
        contents: [
          `import { anywidgetAbortSignal as AbortSignal } from ${signal};`,
          'let factory;',
          'function define(dependencies, make) { factory = make; }',
          'define.amd = true;',
          source,
          'if (!factory) throw new Error("anywidget did not define its module");',
          'export default factory;',
        ].join('\n'),
        loader: 'js',
        resolveDir: path.dirname(args.path),
      };
    });
    // JupyterLab's MathJax fonts are named the webpack way (`~package/file`)
    build.onResolve({ filter: /^~/ }, (args) => ({
      path: require.resolve(args.path.slice(1), { paths: [args.resolveDir] }),
    }));
  },
};

await rm(outdir, { recursive: true, force: true });
await esbuild.build({
  entryPoints: { 'amteach-lean': 'src/index.ts', 'amteach-lean-rich': 'src/rich.css' },
  bundle: true,
  splitting: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  outdir,
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  legalComments: 'linked',
  // the few pictures ipywidgets' styles use travel inside the style sheet; MathJax's fonts are
  // files of their own, fetched only when math is drawn
  loader: { '.svg': 'dataurl', '.png': 'dataurl', '.gif': 'dataurl', '.woff': 'file' },
  define: { 'process.env.NODE_ENV': '"production"' },
  // tsconfig.json is for the type check only: its "strict" would put the whole bundle,
  // jQuery and Backbone included, in strict mode
  tsconfigRaw: {},
  plugins: [adapt],
  logLevel: 'warning',
});

// what the Python side must agree with (tests/test_frontend_versions.py)
const constant = (name, file, constantName) =>
  packageFile(name, file).match(new RegExp(`${constantName} = '([^']+)'`))[1];
const bundled = Object.fromEntries(
  Object.keys(pkg.dependencies)
    .sort()
    .map((name) => [name, installed(name)]),
);
const manifest = {
  packages: bundled,
  // the widget model versions ipywidgets' kernel side must name
  widgetModels: {
    '@jupyter-widgets/base': constant('@jupyter-widgets/base', 'lib/version.js', 'JUPYTER_WIDGETS_VERSION'),
    '@jupyter-widgets/controls': constant('@jupyter-widgets/controls', 'lib/version.js', 'JUPYTER_CONTROLS_VERSION'),
    '@jupyter-widgets/output': constant('@jupyter-widgets/output', 'lib/output.js', 'OUTPUT_WIDGET_VERSION'),
    protocol: constant('@jupyter-widgets/base', 'lib/version.js', 'PROTOCOL_VERSION'),
  },
};
await writeFile(path.join(outdir, 'amteach-lean.versions.json'), JSON.stringify(manifest, null, 2) + '\n');
