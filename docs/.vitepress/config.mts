import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';

/** The API reference's sidebar, written by TypeDoc (`npm run docs` runs it first). */
function apiSidebar(): DefaultTheme.SidebarItem[] {
  const file = fileURLToPath(new URL('../api/typedoc-sidebar.json', import.meta.url));
  if (!existsSync(file)) return [];
  return JSON.parse(readFileSync(file, 'utf8')) as DefaultTheme.SidebarItem[];
}

const guide: DefaultTheme.SidebarItem[] = [
  {
    text: 'Introduction',
    items: [
      { text: 'Getting started', link: '/guide/getting-started' },
      { text: 'CLI', link: '/guide/cli' },
    ],
  },
  {
    text: 'Writing a server',
    items: [
      { text: 'Tools', link: '/guide/tools' },
      { text: 'Resources', link: '/guide/resources' },
      { text: 'Prompts', link: '/guide/prompts' },
      { text: 'Completion', link: '/guide/completion' },
      { text: 'The context', link: '/guide/context' },
      { text: 'Input classes', link: '/guide/input-classes' },
      { text: 'Errors', link: '/guide/errors' },
      { text: 'Tasks', link: '/guide/tasks' },
      { text: 'Skills', link: '/guide/skills' },
      { text: 'Interactive views (MCP Apps)', link: '/guide/apps' },
      { text: 'Testing', link: '/guide/testing' },
    ],
  },
  {
    text: 'Serving',
    items: [
      { text: 'Deployment', link: '/guide/deployment' },
      { text: 'Protocol eras', link: '/guide/eras' },
      { text: 'Authorization', link: '/guide/authorization' },
      { text: 'Call policies', link: '/guide/policies' },
      { text: 'Observability', link: '/guide/observability' },
      { text: 'Scaling out on Redis', link: '/guide/scaling-out' },
    ],
  },
  {
    text: 'Deploy',
    items: [
      { text: 'Overview', link: '/deploy/' },
      { text: 'Node.js', link: '/deploy/node' },
      { text: 'Container', link: '/deploy/container' },
      { text: 'Bun', link: '/deploy/bun' },
      { text: 'Deno', link: '/deploy/deno' },
      { text: 'Cloudflare Workers', link: '/deploy/workers' },
      { text: 'AWS Lambda', link: '/deploy/lambda' },
    ],
  },
  {
    text: 'Composition',
    items: [
      { text: 'Servers built at runtime', link: '/guide/runtime-servers' },
      { text: 'MCP client', link: '/guide/client' },
    ],
  },
];

export default defineConfig({
  title: 'mcpkit',
  description: 'A TypeScript framework for Model Context Protocol servers built from decorated classes',
  // Served from any folder (the docs test serves the build at the root of a loopback server).
  base: '/',
  lastUpdated: false,
  // The API reference of `mcpkit` is one large page: its chunk is big by design.
  vite: { build: { chunkSizeWarningLimit: 2048 } },
  // Links from the guides to the repository's own folders (examples/) leave the site: the docs test checks
  // them against the repository. TSDoc comments name the Inspector's localhost origin.
  ignoreDeadLinks: [/^https?:\/\/localhost[:/]/, /\/examples\//],
  themeConfig: {
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'API', link: '/api/' },
    ],
    sidebar: {
      '/guide/': guide,
      '/api/': [{ text: 'API reference', link: '/api/', items: apiSidebar() }],
    },
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
});
