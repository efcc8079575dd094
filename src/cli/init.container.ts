/** The container files of `mcpkit init` (node target), and how a generated README says where mcpkit comes from. */

/**
 * A two-stage image: the first installs and compiles, the second holds the compiled server and its
 * production dependencies only, run by the image's unprivileged `node` user. A mcpkit tarball kept in
 * the project (`"mcpkit": "file:mcpkit-x.y.z.tgz"`) is copied with package.json; none is needed when
 * mcpkit comes from the registry.
 */
export function dockerfile(skills: boolean): string {
  return `# docker build -t __NAME__ .
# docker run --rm -p 3000:3000 -e ALLOWED_HOSTS=mcp.example.com __NAME__
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json* *.tgz ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-slim
WORKDIR /app
# HOST 0.0.0.0: reachable from outside the container. The Host header is still checked: ALLOWED_HOSTS names the
# host names (with the port when a client's differs from PORT) clients use, besides localhost and 127.0.0.1.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 ALLOWED_HOSTS=""
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
${skills ? 'COPY skills ./skills\n' : ''}USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
`;
}

export const DOCKERIGNORE = `node_modules/
dist/
test/
.git/
*.log
.env*
`;

/**
 * Where the README says mcpkit comes from: the tarball package.json names, or the registry, with the way
 * to a tarball while the registry has no such version.
 */
export function installNote(spec: string, version: string, install: string): string {
  if (spec.startsWith('file:')) {
    return `package.json takes mcpkit from the tarball \`${spec.slice(5)}\` (relative paths start at this folder) and every
other package from the npm registry: \`${install}\` installs them.`;
  }
  return `package.json asks the npm registry for mcpkit \`${spec}\`. If \`${install}\` answers 404 for mcpkit (it is not
published there yet) or you want a build of your own, install it from its tarball (\`npm pack\` in a clone of mcpkit
makes \`mcpkit-${version}.tgz\`): copy the tarball into this folder, set the dependency to
\`"mcpkit": "file:mcpkit-${version}.tgz"\` in package.json (or run \`mcpkit init --mcpkit file:mcpkit-${version}.tgz\`), then \`${install}\`.`;
}
