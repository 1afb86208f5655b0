// amteach's lean front end for Voilà pages (docs/deploy.md, "Issue 24: a lean front end").
// Voilà's lab front end loads JupyterLab's application, 70 chunks and three extensions before
// it asks the kernel for its widgets; this script alone connects to the page's preheated
// kernel, asks it for every widget's state in one message and draws each widget output where
// the template left it. The page's other behaviours (the Reload dialog, the ARIA fixes) are
// here too; the alive and release beacons stay inline in the template, so
// they work even while this script loads.
import '@jupyter-widgets/controls/css/widgets-base.css';
import type * as nbformat from '@jupyterlab/nbformat';
import { CommsOverSubshells, ServerConnection } from '@jupyterlab/services';
import { KernelConnection } from '@jupyterlab/services/lib/kernel/default';
import { watchAccessibility } from './accessibility';
import { KernelWidgetManager } from './manager';
import { loadRich } from './rich-loader';

const OUTPUT_SCRIPT = 'script[type="application/vnd.voila.cell-output+json"]';
const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';

interface PageConfig {
  baseUrl: string;
  kernelId: string;
}

interface CellOutput {
  output_type: string;
  data?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  text?: string;
  traceback?: string[];
}

function pageConfig(): PageConfig {
  const element = document.getElementById('jupyter-config-data');
  return JSON.parse(element?.textContent ?? '{}') as PageConfig;
}

let lost = false;
/** The board no longer answers: say so, with a Reload button, instead of a dead page. */
function showLost(): void {
  if (lost) return;
  lost = true;
  const box = document.createElement('div');
  box.className = 'am-lost';
  box.setAttribute('role', 'alertdialog');
  box.setAttribute('aria-labelledby', 'am-lost-text');
  const inner = document.createElement('div');
  const text = document.createElement('p');
  text.id = 'am-lost-text';
  text.textContent =
    'Your game has stopped: the server lost the part that was running it, so this board no ' +
    'longer answers. Reload the page to start a new game.';
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = 'Reload';
  button.addEventListener('click', () => window.location.reload());
  inner.append(text, button);
  box.append(inner);
  document.body.appendChild(box);
  button.focus();
}

/** One cell output, drawn in place of the script that carries it. */
async function renderOutput(
  manager: KernelWidgetManager,
  script: HTMLScriptElement,
): Promise<void> {
  const output = JSON.parse(script.textContent ?? '{}') as CellOutput;
  const area = document.createElement('div');
  area.className = 'jp-OutputArea-output';
  script.replaceWith(area);
  const data = output.data ?? {};
  const view = data[WIDGET_VIEW] as { model_id?: string } | undefined;
  if (view?.model_id && manager.has_model(view.model_id)) {
    const model = await manager.get_model(view.model_id);
    await manager.display_view(manager.create_view(model), area);
    return;
  }
  // anything else (text, HTML, Markdown, an image, an error; a widget the kernel no longer
  // has) is drawn by JupyterLab's renderers, as Voilà's own front end draws it
  const { renderOutput: render } = await loadRich();
  render(area, output as unknown as nbformat.IOutput);
}

async function start(): Promise<void> {
  performance.mark('amteach-lean:start');
  const config = pageConfig();
  if (!config.kernelId) return; // an error page, or a page Voilà drew without a kernel
  const base = new URL(config.baseUrl ?? '/', window.location.href);
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: base.href,
    wsUrl: base.href.replace(/^http/, 'ws'),
  });
  const kernel = new KernelConnection({
    model: { id: config.kernelId, name: '' },
    serverSettings,
    handleComms: true,
    // @jupyterlab/services 7.6 would open a kernel subshell per comm target (ipykernel 7 has
    // them): a round trip more before the widgets, and errors in the console when the kernel
    // dies with the requests open. Voilà's own front end keeps comms on the main shell too.
    commsOverSubshells: CommsOverSubshells.Disabled,
  });
  // a killed kernel is restarted empty by the server (status "autorestarting"), or not at all
  kernel.statusChanged.connect((_, status) => {
    if (['autorestarting', 'restarting', 'dead'].includes(status)) showLost();
  });
  // the page's reconnection attempts are used up (the kernel was shut down meanwhile)
  kernel.connectionStatusChanged.connect((_, status) => {
    if (status === 'disconnected') showLost();
  });
  // marks for benchmarks/bench_page_ab.py (performance.getEntriesByType('mark'))
  kernel.connectionStatusChanged.connect((_, status) => {
    if (status === 'connected') performance.mark('amteach-lean:connected');
  });
  const manager = new KernelWidgetManager(kernel);
  await manager.loadAllFromKernel();
  performance.mark('amteach-lean:states');
  const scripts = [...document.querySelectorAll<HTMLScriptElement>(OUTPUT_SCRIPT)];
  await Promise.all(scripts.map((script) => renderOutput(manager, script)));
  performance.mark('amteach-lean:drawn');
}

watchAccessibility();
start().catch((error: unknown) => {
  console.error('The page could not reach its game:', error);
  showLost();
});
