// Builds the lean front end into one script and one style sheet in the amteach-lean template's
// static folder (committed: the wheel carries them, and a machine installing amteach has no
// node). `npm ci && npm run build` gives the same bytes again (tests/test_lean_frontend.py).
import { readFile } from 'node:fs/promises';
import * as esbuild from 'esbuild';

// `node build.mjs [folder]`: another folder for a test that compares a rebuild with the
// committed files
const outdir = process.argv[2] ?? '../amteach/voila_template_lean/static';

// Packages the page never needs: ipywidgets 7's classes (the kernels run ipywidgets 8) and
// lab's default variables (the template links JupyterLab's light theme).
const leaveOut = {
  name: 'leave-out',
  setup(build) {
    build.onResolve({ filter: /^@jupyter-widgets\/(base7|controls7)(\/|$)/ }, (args) => ({
      path: args.path,
      namespace: 'left-out',
    }));
    build.onResolve({ filter: /labvariables\.css$/ }, (args) => ({
      path: args.path,
      namespace: 'left-out',
    }));
    build.onLoad({ filter: /.*/, namespace: 'left-out' }, (args) => ({
      contents: args.path.endsWith('.css') ? '' : 'module.exports = {};',
      loader: args.path.endsWith('.css') ? 'css' : 'js',
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
  plugins: [leaveOut],
  logLevel: 'warning',
});
