// A widget manager for one Voilà page: ipywidgets' manager base, connected to the page's
// (preheated) kernel through @jupyterlab/services, without JupyterLab's application. Not
// ipywidgets' HTMLManager, which loads JupyterLab's output area and renderers with every page:
// here they come in a second script (src/rich.ts), fetched the first time a page shows an
// Output widget, a non-widget output or math; the app's own pages never need it.
import * as base from '@jupyter-widgets/base';
import type { DOMWidgetView, IClassicComm, WidgetModel, WidgetView } from '@jupyter-widgets/base';
import { ManagerBase } from '@jupyter-widgets/base-manager';
import * as controls from '@jupyter-widgets/controls';
import type { Kernel } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';
import { MessageLoop } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import anywidget from './anywidget';
import { lazyTypesetter, loadRich } from './rich-loader';

// anywidget's widget classes (AnyModel, AnyView), made once from the bundled base module
let anywidgetModule: Record<string, unknown> | undefined;

async function widgetModule(moduleName: string): Promise<Record<string, unknown> | undefined> {
  switch (moduleName) {
    case '@jupyter-widgets/base':
      return base as unknown as Record<string, unknown>;
    case '@jupyter-widgets/controls':
      return controls as unknown as Record<string, unknown>;
    case 'anywidget':
      // our charts and watchers, and plotly's FigureWidget, are anywidgets: the only widget
      // library the app uses beyond ipywidgets' own
      anywidgetModule ??= anywidget(base);
      return anywidgetModule;
    case '@jupyter-widgets/output': {
      const { OutputModel, OutputView } = await loadRich();
      return { OutputModel, OutputView };
    }
    default:
      return undefined;
  }
}

export class KernelWidgetManager extends ManagerBase {
  readonly kernel: Kernel.IKernelConnection;
  private readonly shown = new Set<DOMWidgetView>();

  constructor(kernel: Kernel.IKernelConnection) {
    super();
    this.kernel = kernel;
    // widgets the kernel makes after the page is drawn (a new tab's content, a chart)
    kernel.registerCommTarget(this.comm_target_name, async (comm, message) => {
      await this.handle_comm_open(new base.shims.services.Comm(comm), message);
    });
    // lumino widgets (the tabs' bars) lay themselves out again when the window changes size
    window.addEventListener('resize', () => {
      for (const view of this.shown) {
        MessageLoop.postMessage(view.luminoWidget, Widget.ResizeMessage.UnknownSize);
      }
    });
  }

  /** Every widget's state from the kernel in one message (ipywidgets 8's control comm). */
  loadAllFromKernel(): Promise<void> {
    return this._loadFromKernel();
  }

  /** Draw `view` (a page's top widget) into `element`. */
  async display_view(view: Promise<WidgetView> | WidgetView, element: HTMLElement): Promise<void> {
    // a page's outputs are DOM widgets (ipywidgets' and anywidgets'), drawn by lumino
    const drawn = (await view) as DOMWidgetView;
    Widget.attach(drawn.luminoWidget, element);
    this.shown.add(drawn);
    drawn.once('remove', () => this.shown.delete(drawn));
  }

  /** What ipywidgets' views ask the manager for to typeset math (descriptions, HTMLMath);
   * ipywidgets' own inline_sanitize (sanitize-html) cleans HTML descriptions. */
  readonly _rendermime = { latexTypesetter: lazyTypesetter };

  protected async loadClass(
    className: string,
    moduleName: string,
    moduleVersion: string,
  ): Promise<typeof WidgetModel | typeof WidgetView> {
    const found = (await widgetModule(moduleName))?.[className];
    if (!found) {
      throw new Error(`This page cannot draw ${className} from ${moduleName}@${moduleVersion}`);
    }
    return found as typeof WidgetModel | typeof WidgetView;
  }

  protected async _create_comm(
    targetName: string,
    modelId?: string,
    data?: JSONObject,
    metadata?: JSONObject,
    buffers?: ArrayBuffer[] | ArrayBufferView[],
  ): Promise<IClassicComm> {
    const comm = this.kernel.createComm(targetName, modelId);
    if (data || metadata) {
      comm.open(data ?? {}, metadata, buffers);
    }
    return new base.shims.services.Comm(comm);
  }

  protected async _get_comm_info(): Promise<Record<string, unknown>> {
    const reply = await this.kernel.requestCommInfo({ target_name: this.comm_target_name });
    return reply.content.status === 'ok' ? reply.content.comms : {};
  }
}
