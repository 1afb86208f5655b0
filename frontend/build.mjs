// Builds the lean front end into one script and one style sheet in the amteach-lean template's
// static folder (committed: the wheel carries them, and a machine installing amteach has no
// node). `npm ci && npm run build` gives the same bytes again (tests/test_lean_frontend.py).
import { readFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';

// `node build.mjs [folder]`: another folder for a test that compares a rebuild with the
// committed files
const outdir = process.argv[2] ?? '../amteach/voila_template_lean/static';

const adapt = {
  name: 'adapt',
  setup(build) {
    // ipywidgets' HTML sanitizer (sanitize-html and a CSS parser, 230 kB) serves only
    // descriptions marked as HTML, which src/manager.ts shows as text instead
    build.onResolve({ filter: /^sanitize-html$/ }, () => ({ path: 'sanitize-html', namespace: 'left-out' }));
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({
      contents: 'export default () => { throw new Error("no HTML sanitizer in this page"); };',
      loader: 'js',
    }));
    // anywidget ships an AMD module: its factory becomes the module's default export
    build.onLoad({ filter: /anywidget[\\/]dist[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const amd = 'define(["@jupyter-widgets/base"], widget_default);';
      if (!source.includes(amd)) throw new Error('anywidget: its AMD definition has changed');
      return { contents: source.replace(amd, 'export default widget_default;'), loader: 'js' };
    });
  },
};

await esbuild.build({
  entryPoints: { 'amteach-lean': 'src/index.ts' },
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2022',
  outdir,
  legalComments: 'linked',
  // the few pictures ipywidgets' styles use travel inside the style sheet
  loader: { '.svg': 'dataurl', '.png': 'dataurl', '.gif': 'dataurl' },
  define: { 'process.env.NODE_ENV': '"production"' },
  // tsconfig.json is for the type check only: its "strict" would put the whole bundle,
  // jQuery and Backbone included, in strict mode
  tsconfigRaw: {},
  plugins: [adapt],
  logLevel: 'warning',
});
