// The ESM entry point: the CommonJS build's names, re-exported (Node reads them with its CommonJS lexer), so that
// `import` and `require` share one copy of every class and of the decorators' metadata in a process.
export * from './index.js';
