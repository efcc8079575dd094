#!/usr/bin/env node
// The `mcpkit` command. Node's compile cache goes on before the CLI's modules load.
import './compile-cache';
import { main } from './main';

main();
