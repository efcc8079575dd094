/** The MCP Apps extension (SEP-1865): its identifier in capabilities, and the MIME type of its HTML views. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

/** Origins a view's sandbox may reach (`_meta.ui.csp`); each maps to CSP directives the host builds. */
export interface ViewCsp {
  /** fetch/XHR/WebSocket origins (`connect-src`). */
  connectDomains?: string[];
  /** Scripts, images, styles, fonts and media (`script-src`, `img-src`, …); `https://*.example.com` allowed. */
  resourceDomains?: string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: string[];
  /** Allowed `<base>` URIs (`base-uri`). */
  baseUriDomains?: string[];
}

/** Browser capabilities a view asks for (`_meta.ui.permissions`); hosts may grant them. */
export interface ViewPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** The HTML of a view: the document itself, a file to read (`{ file }`, relative to the working directory), or a function producing it. */
export type ViewHtml = string | { file: string } | (() => string | Promise<string>);

/** Options of `@View`. */
export interface ViewOptions {
  /** The view's resource URI; must use the `ui://` scheme. */
  uri: string;
  html: ViewHtml;
  /** The resource name; defaults to the class name. */
  name?: string;
  title?: string;
  description?: string;
  csp?: ViewCsp;
  permissions?: ViewPermissions;
  /** Ask the host for (true) or against (false) a visible border and background. */
  prefersBorder?: boolean;
  /** A dedicated sandbox origin; its format is host-specific. */
  domain?: string;
}

/** Who may call a tool that has a view: the model, the view (app), or both (the default). */
export type ToolVisibility = 'model' | 'app';

/** The `ui` option of `@Tool`: a view class, or the view with details. */
export type ToolUi =
  | (abstract new (...args: never[]) => unknown)
  | {
      view: abstract new (...args: never[]) => unknown;
      /** Default `['model', 'app']`. Hosts filter on it; the server lists every tool. */
      visibility?: ToolVisibility[];
      /**
       * How hosts without views get text: 'output' (default) needs an `output` class, whose JSON is sent as
       * text beside `structuredContent`; 'handler' says the handler returns its own text content.
       */
      fallback?: 'output' | 'handler';
    };

/** Application option `views`: who gets the view metadata of tools. */
export interface ViewsOptions {
  /** 'all-clients' (default), or 'extension-clients': only those that declared `io.modelcontextprotocol/ui`. */
  metadata?: 'all-clients' | 'extension-clients';
}
