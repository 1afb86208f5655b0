// What a notebook's cells can show beyond the app's widgets, drawn by JupyterLab's standard
// packages as Voilà's own front end draws them (docs/dashboard.md, "What the lean page draws"):
// - non-widget outputs (text, HTML, Markdown, LaTeX, images, errors) through
//   @jupyterlab/rendermime's standard renderers in an @jupyterlab/outputarea output area;
// - ipywidgets' Output widget (@jupyter-widgets/output), whose outputs are such an area;
// - math in HTMLMath widgets, descriptions and outputs, typeset by MathJax (src/typeset.ts).
// The app's own pages use none of these, so this module is a separate file, loaded the first
// time a page needs it, with its styles (src/rich.css): the dashboard's script stays as it was.
import * as base from '@jupyter-widgets/base';
import * as output from '@jupyter-widgets/output';
import type * as nbformat from '@jupyterlab/nbformat';
import { OutputAreaModel, SimplifiedOutputArea } from '@jupyterlab/outputarea';
import { RenderMimeRegistry, standardRendererFactories } from '@jupyterlab/rendermime';
import type { IRenderMime } from '@jupyterlab/rendermime';
import type { Kernel, KernelMessage } from '@jupyterlab/services';
import { Widget } from '@lumino/widgets';
import $ from 'jquery';
import { marked } from 'marked';
import { MATH } from './rich-loader';

/** Markdown to HTML for rendermime's Markdown renderer (JupyterLab's own parser plugin is
 * marked too, with code highlighting from CodeMirror, which this page does not carry). */
const markdownParser: IRenderMime.IMarkdownParser = {
  render: async (source: string) => marked.parse(source, { async: false }) as string,
};

/** MathJax (src/typeset.ts), fetched the first time an element has math in it. */
export const typesetter: IRenderMime.ILatexTypesetter = {
  typeset(element: HTMLElement): void {
    if (!MATH.test(element.textContent ?? '')) return;
    void import('./typeset').then((mathjax) => mathjax.typeset(element));
  },
};

/** The page's renderers. Outputs come from the page's own notebook, executed by the server, so
 * they are trusted as Voilà trusts them; rendermime's default sanitizer (JupyterLab's, on
 * sanitize-html) still cleans Markdown and untrusted HTML. */
export const rendermime = new RenderMimeRegistry({
  initialFactories: standardRendererFactories,
  latexTypesetter: typesetter,
  markdownParser,
});

/** One cell output (as Voilà wrote it into the page), drawn into `host`. */
export function renderOutput(host: HTMLElement, cellOutput: nbformat.IOutput): void {
  const model = new OutputAreaModel({ trusted: true });
  model.add(cellOutput);
  const area = new SimplifiedOutputArea({ model, rendermime });
  Widget.attach(area, host);
}

type Manager = { kernel: Kernel.IKernelConnection };

/** ipywidgets' Output widget. Its outputs are kept in the model's `outputs` (the kernel's
 * state, and what the page draws); while the kernel runs code inside `with out:` (its
 * `msg_id` is set), the outputs of that code come to this model instead of the page. */
export class OutputModel extends output.OutputModel {
  // set in initialize, which Backbone's constructor calls before a class field would be set
  declare outputs: OutputAreaModel;
  declare private hook: ((message: KernelMessage.IIOPubMessage) => boolean) | undefined;
  declare private hookedId: string;
  // true while one side (the kernel's state, the page's output area) is copied to the other
  declare private syncing: boolean;

  initialize(attributes: Backbone.ObjectHash, options: base.IBackboneModelOptions): void {
    super.initialize(attributes, options);
    this.outputs = new OutputAreaModel({ trusted: true });
    this.hookedId = '';
    this.syncing = false;
    this.outputs.fromJSON(this.get('outputs') ?? []);
    this.listenTo(this, 'change:outputs', () => {
      if (this.syncing) return;
      this.syncing = true;
      this.outputs.clear();
      this.outputs.fromJSON(this.get('outputs') ?? []);
      this.syncing = false;
    });
    this.listenTo(this, 'change:msg_id', () => this.capture(String(this.get('msg_id') ?? '')));
    // outputs captured here go back to the kernel's copy of the widget
    this.outputs.changed.connect(() => {
      if (this.syncing) return;
      this.syncing = true;
      this.set('outputs', this.outputs.toJSON(), { updated_view: this });
      this.save_changes();
      this.syncing = false;
    });
    this.capture(String(this.get('msg_id') ?? ''));
  }

  private get kernel(): Kernel.IKernelConnection {
    return (this.widget_manager as unknown as Manager).kernel;
  }

  private capture(msgId: string): void {
    if (msgId === this.hookedId) return;
    if (this.hook && this.hookedId) this.kernel.removeMessageHook(this.hookedId, this.hook);
    this.hook = undefined;
    this.hookedId = msgId;
    if (!msgId) return;
    this.hook = (message: KernelMessage.IIOPubMessage): boolean => {
      const type = message.header.msg_type;
      if (type === 'clear_output') {
        this.outputs.clear((message.content as { wait?: boolean }).wait);
        return false;
      }
      if (['execute_result', 'display_data', 'stream', 'error'].includes(type)) {
        this.outputs.add({ ...(message.content as object), output_type: type } as nbformat.IOutput);
        return false;
      }
      return true; // a message for someone else (status, comm messages)
    };
    this.kernel.registerMessageHook(msgId, this.hook);
  }
}

/** The Output widget's view: a Lumino panel holding an output area of the model's outputs. */
export class OutputView extends output.OutputView {
  declare luminoWidget: base.JupyterLuminoPanelWidget;
  declare model: OutputModel;

  _createElement(_tagName: string): HTMLElement {
    this.luminoWidget = new base.JupyterLuminoPanelWidget({ view: this });
    return this.luminoWidget.node;
  }

  _setElement(element: HTMLElement): void {
    if (this.el || element !== this.luminoWidget.node) {
      throw new Error('An Output widget cannot change its element.');
    }
    this.el = this.luminoWidget.node;
    this.$el = $(this.luminoWidget.node);
  }

  render(): void {
    super.render();
    this.el.classList.add('jupyter-widgets', 'jupyter-widget-output', 'widget-output');
    this.luminoWidget.addWidget(
      new SimplifiedOutputArea({ model: this.model.outputs, rendermime }),
    );
  }
}
