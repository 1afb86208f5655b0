// A widget manager for one Voilà page: ipywidgets' HTML manager, connected to the page's
// (preheated) kernel through @jupyterlab/services, without JupyterLab's application.
import { shims } from '@jupyter-widgets/base';
import type { IClassicComm } from '@jupyter-widgets/base';
import * as base from '@jupyter-widgets/base';
import { HTMLManager } from '@jupyter-widgets/html-manager/lib/htmlmanager';
import type { Kernel } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';
import anywidget from './anywidget';

// anywidget's widget classes (AnyModel, AnyView), made once from the bundled base module
let anywidgetModule: Record<string, unknown> | undefined;

function loadModule(moduleName: string, moduleVersion: string): Promise<unknown> {
  // our charts and watchers, and plotly's FigureWidget, are anywidgets: the only widget
  // library the app uses beyond ipywidgets' own
  if (moduleName === 'anywidget') {
    anywidgetModule ??= anywidget(base) as Record<string, unknown>;
    return Promise.resolve(anywidgetModule);
  }
  return Promise.reject(new Error(`This page has no widget module ${moduleName}@${moduleVersion}`));
}

export class KernelWidgetManager extends HTMLManager {
  readonly kernel: Kernel.IKernelConnection;

  constructor(kernel: Kernel.IKernelConnection) {
    super({ loader: loadModule });
    this.kernel = kernel;
    // widgets the kernel makes after the page is drawn (a new tab's content, a chart)
    kernel.registerCommTarget(this.comm_target_name, async (comm, message) => {
      await this.handle_comm_open(new shims.services.Comm(comm), message);
    });
  }

  /** Every widget's state from the kernel in one message (ipywidgets 8's control comm). */
  loadAllFromKernel(): Promise<void> {
    return this._loadFromKernel();
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
    return new shims.services.Comm(comm);
  }

  protected async _get_comm_info(): Promise<Record<string, unknown>> {
    const reply = await this.kernel.requestCommInfo({ target_name: this.comm_target_name });
    return reply.content.status === 'ok' ? reply.content.comms : {};
  }
}
