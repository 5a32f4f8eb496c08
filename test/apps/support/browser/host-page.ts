// The browser side of the test host: bundled by host-server.ts and run in the harness's page. It is a host
// as the MCP Apps extension describes one, built on the official AppBridge: the card runs in a sandboxed
// iframe with an opaque origin and talks to this page only through postMessage; its tool calls are handed to
// the Node side (`hostCallTool`, exposed by playwright), which holds the MCP client connected to the connector.
import { AppBridge, buildAllowAttribute, type McpUiHostContext, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CardHost, Mounted, MountRequest, NodeSide } from '../host-protocol';

declare global {
  interface Window extends NodeSide {
    cardHost: CardHost;
  }
}

let bridge: AppBridge | undefined;

/** Paints the host page with its own variables, as a host's chat column would be behind the card. */
function paintHost(context: McpUiHostContext): void {
  const background = context.styles?.variables?.['--color-background-secondary'];
  if (background) document.body.style.background = background;
}

async function mountCard(request: MountRequest): Promise<Mounted> {
  const iframe = document.createElement('iframe');
  iframe.id = 'card';
  iframe.title = 'Job card';
  // An opaque origin: scripts run, but the card reaches neither this page's DOM nor its storage.
  iframe.setAttribute('sandbox', 'allow-scripts');
  const allow = buildAllowAttribute(request.permissions);
  if (allow) iframe.setAttribute('allow', allow);
  document.getElementById('column')!.append(iframe);

  bridge = new AppBridge(
    null,
    { name: 'connector-test-host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
    { hostContext: request.hostContext },
  );
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onloggingmessage = ({ level, data }) => void window.hostLog({ level, data });
  // The card asks for the height it needs; a host sizes the frame to it.
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${Math.ceil(height)}px`;
  };
  const initialised = new Promise<void>((resolve) => {
    bridge!.oninitialized = () => resolve();
  });
  paintHost(request.hostContext);
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  // Connected before the document loads, so the card's first message (ui/initialize) finds the bridge.
  iframe.srcdoc = request.html;
  await initialised;
  await bridge.sendToolInput({ arguments: request.toolArguments });
  await bridge.sendToolResult(request.toolResult);
  const app = bridge.getAppVersion();
  return { appName: app?.name, appVersion: app?.version };
}

async function changeHostContext(context: McpUiHostContext): Promise<void> {
  paintHost(context);
  await bridge!.sendHostContextChange(context);
}

window.cardHost = { mountCard, changeHostContext };
