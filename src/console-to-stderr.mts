// The ESM entry point: loads the CommonJS module, so that `import` and `require` redirect the console once.
import './console-to-stderr.js';
